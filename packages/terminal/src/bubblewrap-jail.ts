/**
 * One running bubblewrap jail: a single `bwrap` process per `start()` whose process inside is the
 * same helper the Docker backend runs (see docker-helper-source.ts), spoken to over bwrap's stdio
 * pipes. Every file operation, command and PTY session goes through it, so every path is resolved
 * by the kernel inside the jail. The jail dies with its owner (`--die-with-parent`) and keeps
 * nothing on the host's disk (its writable mounts are sized tmpfs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { SandboxUnavailableError, TerminalNotStartedError, UnrecoverableTerminalError } from '@debug-gym/core';
import { HelperClient, HelperLostError, type HelperResponse } from './docker-helper-client.js';
import { HELPER_BOOTSTRAP_UNDUMPABLE, HELPER_SOURCE } from './docker-helper-source.js';
import type { DockerSession } from './docker-session.js';
import { defaultShell } from './shell-launch.js';
import { hostProgram, splitJailEnv } from './jail-host-env.js';

const HELPER_START_TIMEOUT_MS = 30_000;
/** How long close() lets the jail end on its own (the helper exits on EOF) before killing it. */
const CLOSE_GRACE_MS = 2_000;
const KIND = 'bubblewrap';


export interface JailSpec {
  bwrapPath: string;
  /** bwrap arguments up to and including the `--` (and the uid drop when root). */
  args: string[];
  /** The interpreter inside the jail (an absolute path). */
  python: string;
  /** Shell lines run before the helper starts (resource limits). */
  limits: string[];
  /** The helper's base environment (every command's environment starts from it). */
  env: Record<string, string>;
  /** cgroup directories bwrap is started in (it joins them before it execs, so nothing runs outside). */
  cgroups?: string[];
  /** What bwrap reads from file descriptors 3, 4, ... (in this order) for its `--file` arguments. */
  fileData?: string[];
}

/** Joins the cgroups named before `--`, then execs the rest; a failed join ends it before bwrap runs. */
const ENTER_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1/cgroup.procs" || exit 125; shift; done; shift; exec "$@"';

export class BubblewrapJail {
  /** Pid (and process group) of the bwrap process. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Hello line of the helper: Python version, pid, uid, gid, shell. */
  info: HelperResponse | undefined;
  readonly sessions = new Set<DockerSession>();
  private deadReason: string | undefined;
  private closed = false;
  private readonly exited: Promise<void>;
  private exitDetail = '';
  private stderrTail = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly helper: HelperClient,
  ) {
    this.exited = new Promise((resolve) => {
      // 'close': after the exit and after its stderr was read to the end.
      child.once('close', (code, signal) => {
        this.exitDetail = signal ? `killed by ${signal}` : `exit code ${String(code)}`;
        resolve();
      });
      child.once('error', (error) => {
        this.exitDetail = error.message;
        resolve();
      });
    });
  }

  /** Start the jail and wait for its helper; nothing is left behind when it fails. */
  static async start(spec: JailSpec): Promise<BubblewrapJail> {
    // The launcher names the helper process `debug-gym-helper` (bash's exec -a): a `pkill -f python`
    // inside the jail must not match it.
    const launcher =
      `${spec.limits.join('; ')}${spec.limits.length ? '; ' : ''}` +
      'if [ -n "$BASH_VERSION" ]; then exec -a debug-gym-helper "$0" -I -S -c "$1" "$2"; else exec "$0" -I -S -c "$1" "$2"; fi';
    const shell = defaultShell();
    // What the host's loader and shell act on goes in through --setenv, not bwrap's own environment.
    const { host, setenv } = splitJailEnv(spec.env);
    const bwrap = hostProgram(spec.bwrapPath);
    const args = [...setenv, ...spec.args, shell, '-c', launcher, spec.python, HELPER_BOOTSTRAP_UNDUMPABLE, String(Buffer.byteLength(HELPER_SOURCE, 'utf8'))];
    // Its own process group, so a lease can name it for gc (the jail also dies with its parent).
    const [command, commandArgs] = spec.cgroups?.length ? ['/bin/sh', ['-c', ENTER_CGROUPS, 'sh', ...spec.cgroups, '--', bwrap, ...args]] : [bwrap, args];
    const fileData = spec.fileData ?? [];
    const child = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'pipe', ...fileData.map(() => 'pipe' as const)], env: host, cwd: '/', detached: true });
    // Small (well under a pipe's buffer): written at once, closed so bwrap reads to the end.
    fileData.forEach((data, index) => {
      const pipe = child.stdio[3 + index] as NodeJS.WritableStream | null;
      pipe?.on('error', () => undefined);
      pipe?.end(data);
    });
    const stream = Duplex.from({ readable: child.stdout, writable: child.stdin });
    const helper = new HelperClient(stream, 'raw');
    const jail = new BubblewrapJail(child, helper);
    child.stderr?.on('data', (chunk: Buffer) => {
      helper.stderr(chunk);
      jail.stderrTail = (jail.stderrTail + chunk.toString('utf8')).slice(-2000);
    });
    helper.sendSource();
    const timer = setTimeout(() => helper.close(), HELPER_START_TIMEOUT_MS);
    try {
      jail.info = await helper.ready;
      return jail;
    } catch (error) {
      await jail.close();
      throw new SandboxUnavailableError(
        `The bubblewrap sandbox cannot start its helper with Python '${spec.python}' (it needs Python >= 3.8 and bash ` +
          `inside the sandbox): bwrap ${jail.exitDetail}${jail.stderrTail.trim() ? `; stderr: ${jail.stderrTail.trim()}` : ''}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** Throws UnrecoverableTerminalError once the jail is known to be dead. */
  ensureUsable(): void {
    if (this.closed) throw new TerminalNotStartedError(KIND);
    if (this.deadReason) throw new UnrecoverableTerminalError(this.deadReason);
  }

  /** One helper request; a helper that went away means the jail is gone (UnrecoverableTerminalError). */
  async call(op: string, params: Record<string, unknown>): Promise<HelperResponse> {
    this.ensureUsable();
    try {
      return await this.helper.call(op, params);
    } catch (error) {
      if (!(error instanceof HelperLostError)) throw error;
      throw await this.lost(error);
    }
  }

  /**
   * The error for a helper that went away: the jail is dead (its PID namespace ends with the helper),
   * and so is everything in it. TerminalNotStartedError once closed.
   */
  async lost(cause: Error): Promise<Error> {
    if (this.closed) return new TerminalNotStartedError(KIND);
    this.child.kill('SIGKILL');
    await this.exited;
    const reason = `The bubblewrap sandbox ended (${cause.message}; bwrap ${this.exitDetail}), e.g. because a command killed ` +
      'its helper process (`kill -9 -1`). Everything in it is gone.';
    this.deadReason = reason;
    this.detachSessions();
    return new UnrecoverableTerminalError(reason, { cause });
  }

  /** End the jail and everything in it; sessions are let go. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.detachSessions();
    this.helper.close(); // EOF: the helper exits, and the jail with it
    const timer = setTimeout(() => this.child.kill('SIGKILL'), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private detachSessions(): void {
    for (const session of this.sessions) session.detach();
    this.sessions.clear();
  }
}
