/**
 * Node side of the fork server (python/fork_server.py, driven by the sandbox helper): the request
 * that starts it, and how the helper's answers map to `ForkServerStatus` / `LaunchInfo`.
 */
import type { ForkGroup, ForkServerStatus, LaunchInfo, PythonLaunch } from '@debug-gym/core';
import type { HelperResponse } from './docker-helper-client.js';
import { FORK_SERVER_SOURCE } from './fork-server-source.generated.js';

/** Read by the server's `python -c`: its source arrives as the first message on the control socket. */
export const FORK_BOOTSTRAP = "import os,sys;exec(compile(os.read(int(sys.argv[1]),1<<22),'<debug-gym-fork-server>','exec'))";

export const DEFAULT_FORK_GROUPS: readonly ForkGroup[] = ['pytest', 'pdb'];

/** Replaced by the helper with the number of the server's end of the control socket. */
const FD_PLACEHOLDER = '@FD@';
/** Replaced by the helper with its pid: the server leaves if it was orphaned while it imported. */
const PPID_PLACEHOLDER = '@PPID@';

/** A shell word: `'…'` unless it is plainly safe. */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The shell command that starts the server the way a cold command starts Python (`<python> …`), so
 * it sees what the shell adds to the environment (PWD, SHLVL, `_`) and the child can add the same.
 */
export function forkServerCommand(python: string, workdir: string, groups: readonly ForkGroup[], standbys = true, zygote = false): string {
  const mode = zygote ? 'zygote' : standbys ? 'standbys' : '-';
  return `${python} -c "${FORK_BOOTSTRAP}" ${FD_PLACEHOLDER} ${shellWord(workdir)} ${groups.join(',') || '-'} ${PPID_PLACEHOLDER} ${mode}`;
}

export interface ForkStartRequest {
  python: string;
  workdir: string;
  groups: readonly ForkGroup[];
  /** Children forked ahead of their requests (`ForkServerOptions.standbys`, default true). */
  standbys?: boolean;
  /** The environment a cold command gets on top of the helper's own (what the server compares requests with). */
  env: Record<string, string>;
  /** Instead of `[shell, '-c', command]`: the full argv (the local backend's own shell wrapper around `command`). */
  wrap?: (command: string) => string[];
  /**
   * The local backend, on the zygote's helper: ask the zygote (the helper's unnamed server) for this
   * server first; `marker` names the one variable of `env` that may differ from the zygote's.
   */
  zygote?: { marker: string };
  /** Start a zygote instead of a server (see local-zygote.ts). */
  asZygote?: boolean;
}

/** Params of the helper's `fork_start` request. */
export function forkStartParams(request: ForkStartRequest): Record<string, unknown> {
  const command = forkServerCommand(request.python, request.workdir, request.groups, request.standbys !== false, request.asZygote === true);
  return {
    source: FORK_SERVER_SOURCE,
    ...(request.wrap ? { argv: request.wrap(command) } : { cmd: command }),
    env: request.env,
    cwd: request.workdir,
    ...(request.zygote ? { zygote: true, marker: request.zygote.marker, standbys: request.standbys !== false } : {}),
    ...(request.asZygote ? { as_zygote: true } : {}),
  };
}

/** The helper's `fork_start` answer as a status. */
export function forkServerStatus(response: HelperResponse): ForkServerStatus {
  const server = (response.server ?? {}) as Record<string, unknown>;
  if (server.ready !== true) return { ready: false, reason: String(server.reason ?? 'the fork server did not start') };
  if (typeof server.unsafe === 'string' && server.unsafe) return { ready: false, reason: server.unsafe };
  return {
    ready: true,
    ...(typeof server.python === 'string' ? { python: server.python } : {}),
    groups: (Array.isArray(server.groups) ? server.groups : []) as ForkGroup[],
    problems: (server.problems ?? {}) as Record<string, string>,
  };
}

/** The `python` request field of a run or a PTY session (`pdeathsig`: the local backend's cold commands die with Node). */
/** `server`: which of the helper's fork servers (the local zygote's helper runs one per terminal). */
export function pythonParam(launch: PythonLaunch, pdeathsig = 0, server?: string): Record<string, unknown> {
  return { args: [...launch.args], uses: [...launch.uses], ...(pdeathsig ? { pdeathsig } : {}), ...(server ? { server } : {}) };
}

/** Which path a helper `run` / `pty_open` took, when it was given `python`. */
export function launchOf(response: HelperResponse): LaunchInfo | undefined {
  if (response.via === 'fork') return { via: 'fork-server', ...(response.standby === true ? { standby: true } : {}) };
  if (response.via === 'cold') return { via: 'cold', ...(typeof response.reason === 'string' ? { reason: response.reason } : {}) };
  if (typeof response.refused === 'string') return { via: 'cold', reason: response.refused };
  return undefined;
}
