/**
 * Docker backend: one container per `start()`, one long-lived helper process inside it that serves
 * commands, file operations and session PTYs over a JSON-lines protocol (no `docker exec` per
 * command or session). The Terminal API lives here; the running container is a DockerSandbox.
 */
import { posix } from 'node:path';
import type Docker from 'dockerode';
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
import { SandboxUnavailableError, TerminalNotStartedError } from '@debug-gym/core';
import { type DockerConnection, connectDocker, defaultImageName } from './docker-engine.js';
import { HelperLostError, type HelperResponse } from './docker-helper-client.js';
import { DEFAULT_LIMITS, type SandboxUser, checkLimits, sandboxUser, readOnlyRoot, storageQuotaSupported, workdirFromImage } from './docker-limits.js';
import { DockerSandbox } from './docker-sandbox.js';
import { imageTree, unavailable } from './docker-container.js';
import { openHelperSession } from './docker-session.js';
import { helperRunResult, runFailure } from './docker-run-result.js';
import { archiveBytes, packDirectory, reownArchive } from './docker-tar.js';
import { SANDBOX_FIXED_ENV } from './sandbox-env.js';
import { HelperBackedFiles, requireHostDirectory } from './helper-backed-files.js';
import { DEFAULT_FORK_GROUPS, forkServerStatus, forkStartParams, pythonParam } from './fork-server.js';
import { exportTree, importTree } from './tree-transfer.js';

export interface DockerTerminalOptions extends TerminalOptions {
  /**
   * Interpreter inside the container (default: `DEBUG_GYM_DOCKER_PYTHON`, else `python3`). The
   * host-side `DEBUG_GYM_PYTHON` is deliberately not used: a host path rarely exists in an image.
   */
  python?: string;
  /**
   * Image to run. Default: `DEBUG_GYM_DOCKER_IMAGE`, else the built-in recipe (`python:3.12-slim` +
   * pytest, pandas, git) built once by `ensureDefaultImage()`. Offline: `scripts/build-offline-image.sh`.
   */
  image?: string;
  /** Shell commands run (in `workdir`) right after the container starts; a failing one fails `start()`. */
  setupCommands?: string[];
  /**
   * Memory limit: bytes or a string like `'2g'`, `'512m'` (default `'2g'`; swap is disabled at the
   * same limit; `false`: none). The tmpfs mounts below are charged to it too.
   */
  memory?: number | string | false;
  /** CPU limit in cores (default 1; e.g. `1.5`; `false`: none). */
  cpus?: number | false;
  /** Maximum number of processes and threads in the container (default 1024). */
  pidsLimit?: number;
  /** Size of the tmpfs mounted at `/tmp` (default `'512m'`). */
  tmpSize?: number | string;
  /** Size of `/dev/shm` (default `'64m'`). */
  shmSize?: number | string;
  /**
   * Size of the working copy (default `'1g'`; `false`: no size of its own, only `memory` bounds it).
   * On a read-only root (the default) the working copy is a tmpfs of that size; a custom `workdir`
   * (a repository baked into the image, e.g. SWE-bench's `/testbed`) is filled with the image's
   * content there at start, which must fit. With `readOnlyRoot: false`: the whole writable layer's
   * quota on engines that can size it (btrfs, zfs, devicemapper, overlay2 on xfs with pquota), else
   * the tmpfs of `workdirTmpfs`, else no quota.
   */
  disk?: number | string | false;
  /**
   * Only with `readOnlyRoot: false`: put the working copy on a sized tmpfs (default: true for the
   * default `/workspace`, false for a custom `workdir`, whose baked-in repository a tmpfs would hide).
   */
  workdirTmpfs?: boolean;
  /**
   * Make the container's root file system read-only (default true), so that the sandbox can write
   * only to sized tmpfs mounts: the working copy (`disk`), `/tmp` (`tmpSize`), `/dev/shm`
   * (`shmSize`), `/var/tmp` and `/run` (`tmpfs`). Nothing it writes lands in the engine's storage.
   * `false`: the writable layer of the image (uncapped unless the engine can size it, see `disk`),
   * for set-up commands that must install into the image.
   */
  readOnlyRoot?: boolean;
  /**
   * More sized writable paths (path → bytes or `'256m'`), or other sizes for the defaults
   * `/var/tmp` (`'64m'`) and `/run` (`'16m'`) of a read-only root; world-writable (sticky) tmpfs,
   * `/run` root's. They hide what the image has there. Their pages count against `memory`.
   */
  tmpfs?: Record<string, number | string>;
  /**
   * The user commands and sessions run as, and whose file permissions the helper's file
   * operations use (default uid/gid 10001, which the image need not know; `HOME` is `/tmp/home`).
   * `'root'`: no switch, everything runs as the image's user (root for most images; still with
   * only the helper's few capabilities).
   */
  runAs?: SandboxUser | 'root';
  /** Network: off by default (own namespace with only a loopback); `true` = the default bridge, a string = that network. */
  network?: boolean | string;
  /** Working copy inside the container (default `/workspace`). */
  workdir?: string;
  /** Extra container labels (the ownership labels `app`, `debug-gym.*` are always set). */
  labels?: Record<string, string>;
  /** A Dockerode instance or the engine socket path (default: `DOCKER_HOST` / `/var/run/docker.sock`). */
  docker?: DockerConnection;
  /** Run a tiny init (`docker run --init`) as PID 1 to reap zombies (default true; falls back when the engine has none). */
  init?: boolean;
  /**
   * Allow a fork server in the container (`startForkServer`; default true). False: every Python
   * command starts cold, whatever the caller asks.
   */
  forkServer?: boolean;
}

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
const DEFAULT_WORKDIR = '/workspace';
/** Archives up to this size are copied in through the helper, bigger ones with putArchive. */
const INLINE_COPY_LIMIT = 8 * 1024 * 1024;

export class DockerTerminal extends HelperBackedFiles implements Terminal {
  readonly kind = 'docker';
  readonly python: string;
  /** The configured working copy path (what `workdir` returns while started). */
  protected readonly workdirPath: string;
  private readonly options: DockerTerminalOptions;
  private readonly docker: Docker;
  private readonly defaultTimeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly env: Record<string, string>;
  private sandbox: DockerSandbox | undefined;
  private imageName: string | undefined;
  /** Start with an empty working copy even where the image has one (a fork's clone). */
  private emptyWorkdir = false;

  constructor(options: DockerTerminalOptions = {}) {
    super();
    this.options = options;
    this.docker = connectDocker(options.docker);
    // Not DEBUG_GYM_PYTHON: that names the host's interpreter, which rarely exists at the same path in an image.
    this.python = options.python ?? process.env.DEBUG_GYM_DOCKER_PYTHON ?? 'python3';
    this.workdirPath = options.workdir ?? DEFAULT_WORKDIR;
    if (!posix.isAbsolute(this.workdirPath)) {
      throw new RangeError(`workdir must be an absolute path, got '${this.workdirPath}'`);
    }
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.env = options.env ?? {};
    checkLimits(options); // fail fast on a bad value
  }

  /** Absolute path of the working copy inside the container; TerminalNotStartedError before start(). */
  get workdir(): string {
    if (!this.sandbox) throw new TerminalNotStartedError(this.kind);
    return this.workdirPath;
  }

  get started(): boolean {
    return this.sandbox !== undefined;
  }

  /** Id of the current container (undefined when not started). */
  get containerId(): string | undefined {
    return this.sandbox?.container.id;
  }

  /** The image the current (or last) container runs. */
  get image(): string | undefined {
    return this.imageName;
  }

  /** Python version the in-container helper runs on (e.g. `3.11.2`). */
  get helperPython(): string | undefined {
    return this.sandbox?.info?.python as string | undefined;
  }

  async start(): Promise<void> {
    // The old container is let go at once; its removal overlaps the new start-up.
    const previous = this.close().catch(() => undefined);
    const image = this.options.image ?? defaultImageName();
    this.imageName = image;
    try {
      const storageQuota = this.options.disk === false || readOnlyRoot(this.options) ? false : await storageQuotaSupported(this.docker);
      const config = { docker: this.docker, options: this.options, workdir: this.workdirPath, image, python: this.python, storageQuota };
      this.sandbox = await DockerSandbox.start(config);
      if (workdirFromImage(this.options) && !this.emptyWorkdir) await this.fillFromImage(this.sandbox, image);
      for (const command of this.options.setupCommands ?? []) await this.runSetupCommand(command);
      // The working copy (a repository baked into the image, what set-up made) becomes the sandbox user's.
      await this.sandbox.call('own', { path: this.workdirPath }, { retry: true });
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      await previous;
    }
  }

  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    return this.runAs(command, options, false);
  }

  private async runAs(command: string, options: RunOptions, root: boolean): Promise<RunResult> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const params: Record<string, unknown> = {
      cmd: command,
      timeout: timeoutMs > 0 ? timeoutMs / 1000 : null,
      cap: this.maxOutputBytes,
      env: { ...SANDBOX_FIXED_ENV, TERM: 'dumb', ...this.env, ...options.env },
      cwd: this.resolve(options.cwd ?? this.workdirPath),
    };
    if (root) params.root = true;
    if (options.input !== undefined) params.input = Buffer.from(options.input, 'utf8').toString('base64');
    if (options.python && this.options.forkServer !== false) params.python = pythonParam(options.python);
    let response: HelperResponse;
    try {
      response = await this.requireSandbox().call('run', params, { retry: false });
    } catch (error) {
      return runFailure(error, started, options.cwd ?? this.workdirPath, this.workdirPath);
    }
    return helperRunResult(response, started);
  }

  async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    const sandbox = this.requireSandbox();
    const cwd = await this.checkedDirectory(options.cwd ?? this.workdirPath);
    const helper = await sandbox.liveHelper();
    try {
      return await openHelperSession(helper, {
        command,
        cwd,
        env: { ...SANDBOX_FIXED_ENV, TERM: 'xterm', ...this.env, ...options.env },
        prompt: options.prompt,
        timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
        maxOutputBytes: this.maxOutputBytes,
        sessions: sandbox.sessions,
        ...(options.python && this.options.forkServer !== false ? { python: options.python } : {}),
      });
    } catch (error) {
      if (error instanceof HelperLostError) await sandbox.checkAlive(error);
      throw error;
    }
  }

  /** A new container of the same image and options whose working copy is this one's, copied through both helpers. */
  async fork(): Promise<DockerTerminal> {
    const source = this.workdir;
    const clone = new DockerTerminal(this.options);
    clone.emptyWorkdir = true; // this working copy replaces what the image has there
    await clone.start();
    try {
      await clone.fileCall('remove', source, { keepRoot: true });
      const call = (op: string, params: Record<string, unknown>): Promise<HelperResponse> => this.requireSandbox().call(op, params, { retry: false });
      await importTree((op, params) => clone.requireSandbox().call(op, params, { retry: false }), source, exportTree(call, source));
    } catch (error) {
      await clone.close();
      throw error;
    }
    return clone;
  }

  async startForkServer(options: ForkServerOptions = {}): Promise<ForkServerStatus> {
    if (this.options.forkServer === false) return { ready: false, reason: 'the fork server is turned off (forkServer: false)' };
    const sandbox = this.requireSandbox();
    const params = forkStartParams({
      python: this.python,
      workdir: this.workdirPath,
      groups: options.preload ?? DEFAULT_FORK_GROUPS,
      standbys: options.standbys !== false,
      env: { ...SANDBOX_FIXED_ENV, TERM: 'dumb', ...this.env },
    });
    sandbox.forkStart = params;
    try {
      return forkServerStatus(await sandbox.call('fork_start', params, { retry: false }));
    } catch (error) {
      return { ready: false, reason: `the fork server could not start: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    await sandbox?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Files

  async copyIn(hostDir: string, targetDir?: string): Promise<void> {
    const sandbox = this.requireSandbox();
    await requireHostDirectory(hostDir);
    const target = this.resolve(targetDir ?? this.workdirPath);
    await this.fileCall('mkdir', target);
    const user = sandboxUser(this.options);
    const owner = user ?? { uid: Number(sandbox.info?.uid ?? 0), gid: Number(sandbox.info?.gid ?? 0) };
    const inline = await archiveBytes(packDirectory(hostDir, owner), INLINE_COPY_LIMIT);
    if (inline) {
      await this.fileCall('untar', target, { data: inline.toString('base64') });
      return;
    }
    // Bigger trees stream through the helper too: the engine's putArchive cannot see a tmpfs.
    await sandbox.untarStream(packDirectory(hostDir, owner), target, INLINE_COPY_LIMIT);
  }

  // ---------------------------------------------------------------------------------------------
  // Internals

  private requireSandbox(): DockerSandbox {
    if (!this.sandbox) throw new TerminalNotStartedError(this.kind);
    this.sandbox.ensureUsable();
    return this.sandbox;
  }

  protected helperCall(op: string, params: Record<string, unknown>): Promise<HelperResponse> {
    return this.requireSandbox().call(op, params, { retry: true });
  }

  /**
   * A repository baked into the image at a custom `workdir`, on a read-only root: its tmpfs is filled
   * with the image's content there (a tar from the engine, extracted by the helper as it streams).
   */
  private async fillFromImage(sandbox: DockerSandbox, image: string): Promise<void> {
    const { archive, release } = await imageTree(this.docker, image, this.workdirPath).catch((error: unknown) => {
      throw unavailable(error, `Could not read ${this.workdirPath} of the image ${image}`);
    });
    if (!archive) return;
    try {
      const owner = sandboxUser(this.options) ?? { uid: Number(sandbox.info?.uid ?? 0), gid: Number(sandbox.info?.gid ?? 0) };
      await sandbox.untarStream(reownArchive(archive, owner), posix.dirname(this.workdirPath), INLINE_COPY_LIMIT);
    } catch (error) {
      const full = /No space left/.test((error as Error).message)
        ? ` It does not fit the working copy's tmpfs of ${String(this.options.disk ?? DEFAULT_LIMITS.disk)} (disk): raise disk, or set readOnlyRoot: false to keep it in the image's writable layer (uncapped there).`
        : '';
      throw new SandboxUnavailableError(`Copying the image's ${this.workdirPath} into the sandbox's working copy failed: ${(error as Error).message}.${full}`, { cause: error });
    } finally {
      await release();
    }
  }

  /** Set-up commands come from the owner, not the agent: they run as root (like a Dockerfile's RUN). */
  private async runSetupCommand(command: string): Promise<void> {
    const result = await this.runAs(command, {}, true);
    if (result.exitCode === 0) return;
    const status = result.timedOut ? 'timed out' : `failed with exit code ${result.exitCode ?? 'none (killed)'}`;
    const output = result.output.trim();
    throw new SandboxUnavailableError(
      `Docker setup command \`${command}\` ${status}${output ? `:\n${output.slice(-4000)}` : ' (no output)'}`,
    );
  }
}
