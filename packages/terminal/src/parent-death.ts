import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { isAbsolute } from 'node:path';
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
 * setpriv, or when `spec.file` is not an absolute path to an executable, the spec is returned unchanged.
 */
export function dieWithParent(spec: ProcessSpec): ProcessSpec {
  const helper = pdeathsigHelper();
  // A program that cannot run stays unwrapped, so spawning it fails as a typed error, not setpriv's 127.
  if (!helper || !executable(spec.file)) return spec;
  return { ...spec, file: helper, args: ['--pdeathsig', 'KILL', '--', spec.file, ...spec.args] };
}

function executable(file: string): boolean {
  if (!isAbsolute(file)) return false;
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
