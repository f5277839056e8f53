/**
 * Bubblewrap backend: one long-lived jail per `start()` (see bubblewrap-jail.ts), driven by the
 * in-sandbox helper exactly like the Docker backend: commands, sessions and file operations all
 * run inside the jail. The Terminal API lives here.
 */
import { randomInt } from 'node:crypto';
import { posix } from 'node:path';
import type {
  ForkServerOptions,
  ForkServerStatus,
  RunOptions,
  RunResult,
  SessionOptions,
  Terminal,
  TerminalOptions,
  TerminalSession,
} from '@debug-gym/core';
import {
  SandboxUnavailableError,
  TerminalNotStartedError,
  WorkspaceError,
} from '@debug-gym/core';
import { BubblewrapJail } from './bubblewrap-jail.js';
import { bubblewrapLayout } from './bubblewrap-layout.js';
import { cgroupLimits, warnLimitsOnce } from './bubblewrap-limits.js';
import { type CgroupLimits, type JailCgroup, createJailCgroup, removeCgroup } from './cgroup.js';
import { isRoot, requireBubblewrap } from './bubblewrap-probe.js';
import { HelperLostError, type HelperResponse } from './docker-helper-client.js';
import { helperRunResult, runFailure } from './docker-run-result.js';
import { sweepStaleLeases } from './gc.js';
import { Lease } from './leases.js';
import { openHelperSession } from './docker-session.js';
import { packDirectory } from './docker-tar.js';
import { untarInto } from './bubblewrap-copy.js';
import { pythonBinDirs, pythonInstall } from './python-paths.js';
import { PYTHON_COMMANDS, SANDBOX_BIN_DIR, pythonWrapper } from './python-wrappers.js';
import { SANDBOX_FIXED_ENV, sandboxEnv } from './sandbox-env.js';
import { HelperBackedFiles, requireHostDirectory } from './helper-backed-files.js';
import { DEFAULT_FORK_GROUPS, forkServerStatus, forkStartParams, pythonParam } from './fork-server.js';
import { exportTree, importTree } from './tree-transfer.js';

export interface BubblewrapTerminalOptions extends TerminalOptions {
  /** The bwrap binary (default `bwrap` on PATH). */
  bwrapPath?: string;
  /**
   * Processes and threads the sandbox may have at once (default 1024): its cgroup's pids.max where
   * cgroups are available, and RLIMIT_NPROC of its uid everywhere. Stops fork bombs.
   */
  maxProcesses?: number;
  /** Address-space limit of every process in the sandbox, in bytes (RLIMIT_AS, default 2 GiB). */
  maxMemoryBytes?: number;
  /**
   * Total memory of all the sandbox's processes and its tmpfs mounts, no swap on top: bytes or a
   * Docker-style size (`'2g'`), or false for none (a cgroup; default 2 GiB). Needs root and a
   * writable cgroup hierarchy.
   */
  memory?: number | string | false;
  /** CPU cores all the sandbox's processes may use together (a cgroup CFS quota; default 1), or false for none. */
  cpus?: number | false;
  /** Size of the working copy (a tmpfs in memory; default 1 GiB). */
  workdirSizeBytes?: number;
  /** Size of the sandbox's /tmp (a tmpfs in memory; default 512 MiB). */
  tmpSizeBytes?: number;
  /** Size of the sandbox's /dev/shm (a tmpfs in memory; default 64 MiB). */
  shmSizeBytes?: number;
  /** Working copy inside the sandbox (default `/workspace`). */
  workdir?: string;
  /** Extra host paths to show read-only inside the sandbox (e.g. a virtualenv under your home). */
  readOnlyPaths?: string[];
  /** When running as root: the uid (and gid) the sandbox runs as (default: a random one per start()). */
  uid?: number;
  /** Allow a fork server in the jail (`startForkServer`; default true). False: every Python command starts cold. */
  forkServer?: boolean;
}

const MiB = 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 1024;
export const DEFAULT_MAX_MEMORY_BYTES = 2048 * MiB;
export const DEFAULT_WORKDIR_SIZE = 1024 * MiB;
export const DEFAULT_TMP_SIZE = 512 * MiB;
export const DEFAULT_SHM_SIZE = 64 * MiB;
const DEFAULT_WORKDIR = '/workspace';
const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const SANDBOX_HOME = '/tmp';

/** Unnamed ids far above real users and subuid ranges, so each sandbox gets its own process budget. */
function randomUid(): number {
  return randomInt(1_000_000_000, 2_000_000_000);
}

/**
 * No network, own PID/IPC/UTS (and user, when not root) namespaces, system directories read-only,
 * home and the rest of the host hidden; only the working copy, /tmp and /dev/shm are writable,
 * each a tmpfs of a fixed size. As root, everything inside runs as a random unprivileged uid.
 */
export class BubblewrapTerminal extends HelperBackedFiles implements Terminal {
  readonly kind = 'bubblewrap';
  readonly python: string;
  protected readonly workdirPath: string;
  private readonly defaultTimeoutMs: number;
  private readonly maxOutputBytes: number;
  private jail: BubblewrapJail | undefined;
  private lease: Lease | undefined;
  private cgroup: JailCgroup | undefined;
  private readonly limits: CgroupLimits;

  constructor(private readonly options: BubblewrapTerminalOptions = {}) {
    super();
    this.python = options.python ?? process.env.DEBUG_GYM_PYTHON ?? 'python3';
    this.workdirPath = options.workdir ?? DEFAULT_WORKDIR;
    if (!posix.isAbsolute(this.workdirPath) || posix.normalize(this.workdirPath) === '/') {
      throw new RangeError(`workdir must be an absolute path below /, got '${this.workdirPath}'`);
    }
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.limits = cgroupLimits(options, options.maxProcesses ?? DEFAULT_MAX_PROCESSES);
  }

  get started(): boolean {
    return this.jail !== undefined;
  }

  /** Absolute path of the working copy inside the jail; TerminalNotStartedError before start(). */
  get workdir(): string {
    if (!this.jail) throw new TerminalNotStartedError(this.kind);
    return this.workdirPath;
  }

  async start(): Promise<void> {
    await this.close();
    const status = await requireBubblewrap(this.options.bwrapPath ?? 'bwrap');
    const install = await pythonInstall(this.python);
    if (!install.executable) {
      throw new SandboxUnavailableError(`The Python interpreter '${this.python}' was not found on this host (set the python option or DEBUG_GYM_PYTHON).`);
    }
    const maxProcesses = this.options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    const maxMemoryBytes = this.options.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES;
    // python, python3, pip, pip3: the configured interpreter, written by bwrap from pipes (nothing on the host), read-only in the jail.
    const wrappers = PYTHON_COMMANDS.map((name) => pythonWrapper(name, install.executable as string, SANDBOX_BIN_DIR));
    const layout = bubblewrapLayout({
      files: PYTHON_COMMANDS.map((name, index) => ({ fd: 3 + index, target: `${SANDBOX_BIN_DIR}/${name}`, mode: '0755' })),
      workdir: this.workdirPath,
      readOnly: [...install.paths, ...(this.options.readOnlyPaths ?? [])],
      sizes: {
        workdir: this.options.workdirSizeBytes ?? DEFAULT_WORKDIR_SIZE,
        tmp: this.options.tmpSizeBytes ?? DEFAULT_TMP_SIZE,
        shm: this.options.shmSizeBytes ?? DEFAULT_SHM_SIZE,
      },
    });
    const uid = this.options.uid ?? randomUid();
    const namespaces = isRoot()
      ? ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try']
      : ['--unshare-all'];
    const dropRoot = isRoot()
      ? ['--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--', status.setpriv as string, '--reuid', String(uid),
         '--regid', String(uid), '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs']
      : ['--'];
    // --new-session: nothing in the jail can push input into a terminal we share (TIOCSTI).
    const args = [...namespaces, '--die-with-parent', '--new-session', '--chdir', this.workdirPath, ...layout, ...dropRoot];
    const env = sandboxEnv({ home: SANDBOX_HOME, term: 'dumb', pathFirst: [SANDBOX_BIN_DIR, ...pythonBinDirs(install)], overrides: [this.options.env] });
    await sweepStaleLeases();
    const lease = Lease.open(this.kind);
    this.lease = lease;
    const cgroup = createJailCgroup(`debug-gym-${lease.id}`, this.limits);
    this.cgroup = cgroup;
    if (cgroup) for (const path of cgroup.paths) lease.addCgroup(path);
    else warnLimitsOnce(maxMemoryBytes);
    let jail: BubblewrapJail;
    try {
      jail = await BubblewrapJail.start({
        bwrapPath: this.options.bwrapPath ?? 'bwrap',
        args,
        python: install.executable,
        limits: [`ulimit -u ${Math.floor(maxProcesses)}`, `ulimit -v ${Math.floor(maxMemoryBytes / 1024)}`],
        env,
        cgroups: cgroup?.paths,
        fileData: wrappers,
      });
    } catch (error) {
      await this.releaseHostResources();
      throw error;
    }
    if (jail.pid !== undefined) lease.addGroup(jail.pid);
    this.jail = jail;
    try {
      await this.proveCommandsRun();
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const params: Record<string, unknown> = {
      cmd: command,
      timeout: timeoutMs > 0 ? timeoutMs / 1000 : null,
      cap: this.maxOutputBytes,
      env: this.commandEnv('dumb', options.env),
      cwd: this.resolve(options.cwd ?? this.workdirPath),
    };
    if (options.input !== undefined) params.input = Buffer.from(options.input, 'utf8').toString('base64');
    if (options.python && this.options.forkServer !== false) params.python = pythonParam(options.python);
    let response: HelperResponse;
    try {
      response = await this.requireJail().call('run', params);
    } catch (error) {
      return runFailure(error, started, options.cwd ?? this.workdirPath, this.workdirPath);
    }
    return helperRunResult(response, started);
  }

  async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    const jail = this.requireJail();
    const cwd = await this.checkedDirectory(options.cwd ?? this.workdirPath);
    try {
      return await openHelperSession(jail.helper, {
        command,
        cwd,
        env: this.commandEnv('xterm', options.env),
        prompt: options.prompt,
        timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
        maxOutputBytes: this.maxOutputBytes,
        sessions: jail.sessions,
        ...(options.python && this.options.forkServer !== false ? { python: options.python } : {}),
      });
    } catch (error) {
      if (error instanceof HelperLostError) throw await jail.lost(error);
      throw error;
    }
  }

  /** A new jail with the same options whose working copy is this one's, copied through both helpers. */
  async fork(): Promise<BubblewrapTerminal> {
    const source = this.workdir;
    const clone = new BubblewrapTerminal(this.options);
    await clone.start();
    try {
      await importTree((op, params) => clone.requireJail().call(op, params), source, exportTree((op, params) => this.requireJail().call(op, params), source));
    } catch (error) {
      await clone.close();
      throw error;
    }
    return clone;
  }

  async startForkServer(options: ForkServerOptions = {}): Promise<ForkServerStatus> {
    if (this.options.forkServer === false) return { ready: false, reason: 'the fork server is turned off (forkServer: false)' };
    const params = forkStartParams({
      python: this.python,
      workdir: this.workdirPath,
      groups: options.preload ?? DEFAULT_FORK_GROUPS,
      standbys: options.standbys !== false,
      env: this.commandEnv('dumb', undefined),
    });
    try {
      return forkServerStatus(await this.requireJail().call('fork_start', params));
    } catch (error) {
      return { ready: false, reason: `the fork server could not start: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    const jail = this.jail;
    this.jail = undefined;
    await jail?.close();
    await this.releaseHostResources();
  }

  /** The jail is dead: remove its cgroup, then its lease (kept for gc when the cgroup could not be removed). */
  private async releaseHostResources(): Promise<void> {
    const cgroup = this.cgroup;
    this.cgroup = undefined;
    const removed = await Promise.all((cgroup?.paths ?? []).map((path) => removeCgroup(path)));
    if (removed.every(Boolean)) this.lease?.release();
    this.lease = undefined;
  }

  /** The jail's cgroup directories (empty when the sandbox runs on rlimits alone, or is not started). */
  get cgroupPaths(): string[] {
    return [...(this.cgroup?.paths ?? [])];
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Copy a host directory's contents in (through the helper: nothing of the host is mounted), owned
   * by the sandbox user and writable by it even where the host copy is read-only.
   */
  async copyIn(hostDir: string, targetDir?: string): Promise<void> {
    const jail = this.requireJail();
    await requireHostDirectory(hostDir);
    const target = this.resolve(targetDir ?? this.workdirPath);
    await this.fileCall('mkdir', target);
    const owner = { uid: Number(jail.info?.uid ?? 0), gid: Number(jail.info?.gid ?? 0) };
    try {
      await untarInto((op, params) => this.fileCall(op, target, params), () => packDirectory(hostDir, owner, { ownerWritable: true }));
    } catch (error) {
      if (!(WorkspaceError.isInstance(error) && error.code === 'DG_WORKSPACE_IO')) throw error;
      const full = /No space left/.test(error.message)
        ? ` The working copy is a tmpfs of ${Math.round((this.options.workdirSizeBytes ?? DEFAULT_WORKDIR_SIZE) / MiB)} MiB ` +
          '(workdirSizeBytes): raise it, or leave build output and large data out of the repository.'
        : '';
      throw new WorkspaceError('DG_WORKSPACE_IO', `Copying \`${hostDir}\` into the bubblewrap sandbox failed: ${error.message}.${full}`, { cause: error });
    }
  }

  private commandEnv(term: 'dumb' | 'xterm', extra: Record<string, string> | undefined): Record<string, string> {
    return { ...SANDBOX_FIXED_ENV, TERM: term, ...this.options.env, ...extra };
  }

  /** A sandbox that starts its helper but cannot run a command must fail start(), not every step after it. */
  private async proveCommandsRun(): Promise<void> {
    const result = await this.run('exit 0', { timeoutMs: 30_000 });
    if (result.exitCode !== 0) {
      throw new SandboxUnavailableError(
        `The bubblewrap sandbox started but cannot run a command (exit ${String(result.exitCode)}): ${result.output.trim() || 'no output'}`,
      );
    }
  }

  private requireJail(): BubblewrapJail {
    if (!this.jail) throw new TerminalNotStartedError(this.kind);
    this.jail.ensureUsable();
    return this.jail;
  }

  protected helperCall(op: string, params: Record<string, unknown>): Promise<HelperResponse> {
    return this.requireJail().call(op, params);
  }
}
