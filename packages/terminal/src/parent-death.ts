import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import type { ProcessSpec } from './run-process.js';

const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];

let setpriv: string | null | undefined;

/** util-linux `setpriv` when it is installed and knows `--pdeathsig` (util-linux ≥ 2.33), else null. */
function pdeathsigHelper(): string | null {
  if (setpriv !== undefined) return setpriv;
  setpriv = null;
  for (const candidate of SETPRIV_CANDIDATES) {
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    if (spawnSync(candidate, ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' }).status === 0) setpriv = candidate;
    break;
  }
  return setpriv;
}

/**
 * The same process, SIGKILLed by the kernel when this Node process dies (PR_SET_PDEATHSIG, kept
 * across exec). Covers the direct child only: its own children are found through the lease. Without
 * setpriv the spec is returned unchanged.
 */
export function dieWithParent(spec: ProcessSpec): ProcessSpec {
  const helper = pdeathsigHelper();
  if (!helper) return spec;
  return { ...spec, file: helper, args: ['--pdeathsig', 'KILL', '--', spec.file, ...spec.args] };
}
