import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type {
  DirEntry,
  FileStat,
  ReadFileOptions,
  RunOptions,
  RunResult,
  SessionOptions,
  Terminal,
  TerminalKind,
  TerminalOptions,
  TerminalSession,
} from '@debug-gym/core';
import { NotADirectoryError, PathNotFoundError, TerminalNotStartedError } from '@debug-gym/core';
import { sweepStaleLeases } from './gc.js';
import type { HostFiles } from './host-files.js';
import { killGroup } from './kill-group.js';
import { Lease } from './leases.js';
import { PtySession } from './pty-session.js';
import { type ProcessSpec, runProcess } from './run-process.js';
import { sandboxEnv } from './sandbox-env.js';

export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export interface LaunchRequest {
  command: string;
  /** Working directory inside the sandbox (absolute). */
  cwd: string;
  env: Record<string, string>;
  /** For a PTY session rather than a run-to-completion command. */
  session: boolean;
}

interface Started {
  workdir: string;
  files: HostFiles;
}

/**
 * A sandbox whose processes run on this host and whose working copy is a host temp directory:
 * the shared part of the local and bubblewrap backends. Subclasses decide how a command is wrapped.
 */
export abstract class HostTerminal implements Terminal {
  abstract readonly kind: TerminalKind;
  readonly python: string;
  protected readonly defaultTimeoutMs: number;
  protected readonly maxOutputBytes: number;
  /** Directories before the system dirs on the sandbox's PATH (set by `prepare`). */
  protected pathFirst: string[] = [];
  private current: Started | undefined;
  private readonly groups = new Set<number>();
  private readonly sessions = new Set<PtySession>();
  /** What this sandbox holds on the host, for `gc()` after a SIGKILL (set while started). */
  protected lease: Lease | undefined;

  constructor(protected readonly options: TerminalOptions = {}) {
    this.python = options.python ?? process.env.DEBUG_GYM_PYTHON ?? 'python3';
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  }

  /** Set up the sandbox around a fresh, empty working copy; returns its file access. */
  protected abstract prepare(workdir: string): Promise<HostFiles>;
  /** The process that runs `request` in the sandbox. */
  protected abstract launch(request: LaunchRequest): ProcessSpec;
  /** HOME inside the sandbox. */
  protected abstract home(): string;
  /** Release what `prepare` made (called after every process was killed). */
  protected abstract teardown(workdir: string): Promise<void>;

  get started(): boolean {
    return this.current !== undefined;
  }

  get workdir(): string {
    return this.require().workdir;
  }

  async start(): Promise<void> {
    if (this.current) await this.close();
    await sweepStaleLeases();
    const lease = Lease.open(this.kind);
    this.lease = lease;
    const workdir = await realpath(await mkdtemp(join(tmpdir(), 'debug-gym-')));
    lease.addDir(workdir);
    try {
      this.current = { workdir, files: await this.prepare(workdir) };
    } catch (error) {
      await this.teardown(workdir).catch(() => undefined);
      await rm(workdir, { recursive: true, force: true });
      lease.release();
      this.lease = undefined;
      throw error;
    }
  }

  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const cwd = await this.checkedCwd(options.cwd);
    const spec = this.launch({ command, cwd, env: this.env('dumb', options.env), session: false });
    return runProcess(spec, {
      timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
      maxOutputBytes: this.maxOutputBytes,
      input: options.input,
      onStart: (pgid) => {
        this.groups.add(pgid);
        this.lease?.addGroup(pgid);
      },
      onEnd: (pgid) => {
        this.groups.delete(pgid);
        this.lease?.removeGroup(pgid);
      },
    });
  }

  async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    const cwd = await this.checkedCwd(options.cwd);
    const spec = this.launch({ command, cwd, env: this.env('xterm', options.env), session: true });
    const session = new PtySession(spec, {
      prompt: options.prompt,
      timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
      maxOutputBytes: this.maxOutputBytes,
      onClosed: (closed) => {
        this.sessions.delete(closed);
        this.lease?.removeGroup(closed.pid);
      },
    });
    this.sessions.add(session);
    this.lease?.addGroup(session.pid);
    return session;
  }

  async close(): Promise<void> {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    await Promise.all([...this.sessions].map((session) => session.close()));
    for (const pgid of this.groups) killGroup(pgid);
    this.groups.clear();
    await this.teardown(current.workdir);
    await rm(current.workdir, { recursive: true, force: true, maxRetries: 3 });
    this.lease?.release();
    this.lease = undefined;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array> {
    return this.files().readFile(path, options);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.files().writeFile(path, data);
  }

  async readDir(path: string): Promise<DirEntry[]> {
    return this.files().readDir(path);
  }

  async stat(path: string): Promise<FileStat | null> {
    return this.files().stat(path);
  }

  async realPath(path: string): Promise<string> {
    return this.files().realPath(path);
  }

  async copyIn(hostDir: string, targetDir?: string): Promise<void> {
    return this.files().copyIn(hostDir, targetDir);
  }

  async remove(path: string): Promise<void> {
    return this.files().remove(path);
  }

  private files(): HostFiles {
    return this.require().files;
  }

  private require(): Started {
    if (!this.current) throw new TerminalNotStartedError(this.kind);
    return this.current;
  }

  protected env(term: 'dumb' | 'xterm', extra: Record<string, string> | undefined): Record<string, string> {
    return sandboxEnv({ home: this.home(), term, pathFirst: this.pathFirst, overrides: [this.options.env, extra] });
  }

  /** The command's directory, checked up front so a typo is a typed error, not a shell message. */
  protected async checkedCwd(cwd: string | undefined): Promise<string> {
    const { workdir, files } = this.require();
    if (cwd === undefined) return workdir;
    const kind = await files.directoryKind(cwd);
    if (kind === 'missing') throw new PathNotFoundError(cwd, workdir);
    if (kind === 'other') throw new NotADirectoryError(cwd);
    this.require(); // close() may have run meanwhile
    return posix.resolve(workdir, cwd);
  }
}
