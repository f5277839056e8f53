import { randomInt } from 'node:crypto';
import { chmod, chown, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TerminalOptions } from '@debug-gym/core';
import { type Layout, bubblewrapLayout } from './bubblewrap-layout.js';
import { isRoot, requireBubblewrap } from './bubblewrap-probe.js';
import { type FileOwner, HostFiles } from './host-files.js';
import { HostTerminal, type LaunchRequest } from './host-terminal.js';
import { MountPathResolver } from './path-resolver.js';
import { pythonHostPaths } from './python-paths.js';
import type { ProcessSpec } from './run-process.js';
import { sandboxEnv } from './sandbox-env.js';
import { shellArgv } from './shell-launch.js';

export interface BubblewrapTerminalOptions extends TerminalOptions {
  /** The bwrap binary (default `bwrap` on PATH). */
  bwrapPath?: string;
  /** Processes and threads the sandbox may have at once (RLIMIT_NPROC, default 1024): stops fork bombs. */
  maxProcesses?: number;
  /** Address-space limit per process in bytes (RLIMIT_AS; default none). */
  maxMemoryBytes?: number;
  /** Extra host paths to show read-only inside the sandbox (e.g. a virtualenv under your home). */
  readOnlyPaths?: string[];
  /** When running as root: the uid (and gid) commands run as (default: a random one per start()). */
  uid?: number;
}

export const DEFAULT_MAX_PROCESSES = 1024;
const SANDBOX_SHELL = '/bin/bash';
const SANDBOX_HOME = '/tmp';

/** Unnamed ids far above real users and subuid ranges, so each sandbox gets its own process budget. */
function randomUid(): number {
  return randomInt(1_000_000_000, 2_000_000_000);
}

interface Sandbox {
  scratch: string;
  layout: Layout;
  owner: FileOwner | undefined;
  setpriv: string | undefined;
}

/**
 * Every command and session runs in a fresh bubblewrap sandbox: no network, own PID/IPC/UTS
 * namespaces, system directories read-only, home and the rest of the host hidden, only the
 * working copy and a private /tmp writable, a process limit. As root, commands run as a random
 * unprivileged uid (RLIMIT_NPROC does not apply to root). File methods work on the host directory
 * (same path inside and out), resolving symlinks the way the sandbox sees them.
 */
export class BubblewrapTerminal extends HostTerminal {
  readonly kind = 'bubblewrap';
  private readonly bwrapPath: string;
  private sandbox: Sandbox | undefined;

  constructor(private readonly bwrapOptions: BubblewrapTerminalOptions = {}) {
    super(bwrapOptions);
    this.bwrapPath = bwrapOptions.bwrapPath ?? 'bwrap';
  }

  protected async prepare(workdir: string): Promise<HostFiles> {
    const status = await requireBubblewrap(this.bwrapPath);
    const scratch = await realpath(await mkdtemp(join(tmpdir(), 'debug-gym-tmp-')));
    this.lease?.addDir(scratch);
    this.sandbox = { scratch, layout: { args: [], mounts: [], symlinks: new Map() }, owner: undefined, setpriv: status.setpriv };
    await chmod(scratch, 0o1777);
    const uid = this.bwrapOptions.uid ?? randomUid();
    const owner = isRoot() ? { uid, gid: uid } : undefined;
    if (owner) {
      await chown(workdir, owner.uid, owner.gid);
      await chown(scratch, owner.uid, owner.gid);
    }
    const hostEnv = sandboxEnv({ home: SANDBOX_HOME, term: 'dumb', overrides: [this.options.env] });
    const pythonPaths = await pythonHostPaths(this.python, hostEnv);
    const layout = bubblewrapLayout({ workdir, scratch, readOnly: [...pythonPaths, ...(this.bwrapOptions.readOnlyPaths ?? [])] });
    this.sandbox = { scratch, layout, owner, setpriv: status.setpriv };
    return new HostFiles(new MountPathResolver(workdir, layout.mounts, layout.symlinks), owner);
  }

  protected launch(request: LaunchRequest): ProcessSpec {
    const sandbox = this.sandbox as Sandbox;
    const namespaces = sandbox.owner
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
      : ['--unshare-all'];
    // --new-session stops TIOCSTI into a terminal we share, but detaches a PTY session from its
    // controlling terminal (no Ctrl-C): sessions keep their own PTY, which nothing else reads.
    const session = request.session ? [] : ['--new-session'];
    const dropRoot = sandbox.owner
      ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--', sandbox.setpriv as string,
         '--reuid', String(sandbox.owner.uid), '--regid', String(sandbox.owner.gid), '--clear-groups',
         '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs']
      : ['--'];
    const shell = shellArgv(SANDBOX_SHELL, {
      cwd: request.cwd,
      command: request.command,
      session: request.session,
      jobControl: request.session,
      limits: {
        maxProcesses: this.bwrapOptions.maxProcesses ?? DEFAULT_MAX_PROCESSES,
        maxMemoryBytes: this.bwrapOptions.maxMemoryBytes,
      },
    });
    const args = [...namespaces, '--die-with-parent', ...session, ...sandbox.layout.args, ...dropRoot, ...shell];
    return { file: this.bwrapPath, args, env: request.env, cwd: sandbox.scratch };
  }

  protected home(): string {
    return SANDBOX_HOME;
  }

  protected async teardown(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    if (sandbox) await rm(sandbox.scratch, { recursive: true, force: true, maxRetries: 3 });
  }
}
