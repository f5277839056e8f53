import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { ParamNotAllowedError } from '../errors.js';
import type { ResetParams, TerminalParams } from './reset-params.js';

/**
 * What a client's reset may make the server do on its own host, beyond its sandboxes. The server
 * reads the host paths a client names (the repository, benchmark data, read-only mounts) and runs
 * a few programs itself before any sandbox exists (bubblewrap, the interpreter it probes); these
 * rules keep both the operator's.
 */
export interface HostPolicy {
  /**
   * Repository paths, `data_path` and `terminal.read_only_paths` must lie inside one of these
   * (symlinks resolved). Default: anywhere the server's user can read.
   */
  repoRoots?: readonly string[];
  /** Accept `benchmark_options` (URLs, commits and mirrors the server fetches on its host). Default false. */
  allowBenchmarkOptions?: boolean;
  /**
   * Where a benchmark keeps what it makes for a task itself (its cache: downloaded repositories, the empty
   * working folder of an image task). With `repoRoots`, a task loaded from a client's `data_path` may use a
   * repository there or inside the roots, nowhere else.
   */
  taskRoots?: readonly string[];
}

/** Interpreter names a client may give a sandbox that runs on this host: looked up on the server's PATH. */
const PYTHON_NAME = /^python(3(\.\d{1,2})?)?$/;

/** Backends whose sandbox the server starts on its own host (bubblewrap, or auto's choice of it). */
const HOST_STARTED = new Set(['bubblewrap', 'local', 'auto']);

/** Throws ParamNotAllowedError for a reset that acts on the server's host beyond what the policy allows. */
export async function checkHostParams(params: ResetParams, policy: HostPolicy): Promise<void> {
  if (params.benchmarkOptions !== undefined && policy.allowBenchmarkOptions !== true) {
    throw new ParamNotAllowedError(
      'benchmark_options',
      '`benchmark_options` are not accepted from clients by this server: they name URLs, mirrors and commits the server fetches on its own host. ' +
        'Leave them out (the benchmark\'s defaults apply), or have the operator start the server with --allow-benchmark-options.',
    );
  }
  if (params.terminal) checkTerminalParams(params.terminal);
  const roots = policy.repoRoots ?? [];
  if (roots.length === 0) return;
  if (params.path !== undefined) await checkInsideRoots('path', params.path, roots);
  if (params.dataPath !== undefined) await checkInsideRoots('data_path', params.dataPath, roots);
  for (const path of params.terminal?.readOnlyPaths ?? []) await checkInsideRoots('terminal.read_only_paths', path, roots);
}

/**
 * With `repoRoots`, the repository of a task read from a client's `data_path`: that file's rows are the
 * client's text, so the host folder a row names (`repo_path`, absolute or relative) must lie inside the
 * roots or the benchmark's own cache, like a `path` the client named itself.
 */
export async function checkTaskRepository(path: string, params: ResetParams, policy: HostPolicy): Promise<void> {
  const roots = policy.repoRoots ?? [];
  if (roots.length === 0 || params.dataPath === undefined) return;
  const allowed = [...roots, ...(policy.taskRoots ?? [])];
  if (await insideRoots(path, allowed)) return;
  throw new ParamNotAllowedError(
    'data_path',
    `The task ${JSON.stringify(params.task ?? '')} of \`data_path\` ${JSON.stringify(params.dataPath)} names the repository ${JSON.stringify(path)}, which is outside the folders this server serves repositories from (${roots.join(', ')}): ` +
      'keep the repositories a data file names inside them (a relative `repo_path` is read from the data file\'s folder).',
  );
}

/** The terminal options that act on the host: the programs the server runs itself, and the network. */
export function checkTerminalParams(terminal: TerminalParams): void {
  if (terminal.bwrapPath !== undefined) {
    throw new ParamNotAllowedError(
      'terminal.bwrap_path',
      '`terminal.bwrap_path` names a program the server runs on its own host, outside any sandbox: only the operator chooses it (bwrap on the server\'s PATH). Leave it out.',
    );
  }
  if (terminal.python !== undefined && HOST_STARTED.has(terminal.type) && !hostPythonAllowed(terminal.python)) {
    throw new ParamNotAllowedError(
      'terminal.python',
      `\`terminal.python\` ${JSON.stringify(terminal.python)} is not an interpreter this server runs: for a ${terminal.type} sandbox the server starts the interpreter on its own host to find its install, ` +
        `so a client may only name \`python\`, \`python3\` or \`python3.N\` (found on the server's PATH)${process.env.DEBUG_GYM_PYTHON ? ` or the server's own ${JSON.stringify(process.env.DEBUG_GYM_PYTHON)}` : ''}. ` +
        'Leave it out to use the server\'s interpreter; the operator sets another with DEBUG_GYM_PYTHON. (A Docker sandbox takes any interpreter of its image.)',
    );
  }
  if (typeof terminal.network === 'string' && (terminal.network === 'host' || terminal.network.startsWith('container:'))) {
    throw new ParamNotAllowedError(
      'terminal.network',
      `\`terminal.network\` ${JSON.stringify(terminal.network)} would share ${terminal.network === 'host' ? "the host's network namespace (its loopback services)" : "another container's network namespace"} with the sandbox: ` +
        'use true (a bridge network of its own), false (none), or the name of a network the operator created.',
    );
  }
}

function hostPythonAllowed(python: string): boolean {
  return PYTHON_NAME.test(python) || (process.env.DEBUG_GYM_PYTHON !== undefined && python === process.env.DEBUG_GYM_PYTHON);
}

/** Is `path` (symlinks resolved) one of `roots` or below one? */
async function insideRoots(path: string, roots: readonly string[]): Promise<boolean> {
  const real = await realpath(resolve(path)).catch(() => resolve(path));
  for (const root of roots) {
    const realRoot = await realpath(resolve(root)).catch(() => resolve(root));
    const rest = relative(realRoot, real);
    if (rest === '' || (rest !== '..' && !rest.startsWith('../') && !isAbsolute(rest))) return true;
  }
  return false;
}

/** Throws unless `path` (symlinks resolved) is one of `roots` or below one. */
async function checkInsideRoots(param: string, path: string, roots: readonly string[]): Promise<void> {
  if (await insideRoots(path, roots)) return;
  throw new ParamNotAllowedError(
    param,
    `\`${param}\` ${JSON.stringify(path)} is outside the folders this server serves repositories from (${roots.join(', ')}): name a path inside ${roots.length === 1 ? 'it' : 'one of them'} ` +
      '(the operator sets them with --repo-root).',
  );
}
