/**
 * A pass-through wrapper around a real terminal that counts every call the framework makes (runs,
 * file operations, PTY writes and reads) and can record what the terminal answered, so that the
 * no-op terminal (`replay-terminal.ts`) can give the same answers instantly. A measuring instrument,
 * not a test double: every call still goes to the real sandbox.
 */
import type {
  DirEntry,
  FileStat,
  ForkServerOptions,
  ForkServerStatus,
  LaunchInfo,
  ReadFileOptions,
  RunOptions,
  RunResult,
  SessionOptions,
  SessionReadResult,
  Terminal,
  TerminalKind,
  TerminalSession,
} from '@debug-gym/core';
import type { Recording } from './recording.js';

export interface CallCounts {
  /** `run()` calls (one shell command each). */
  run: number;
  /** File operations (read, write, list, stat, realPath, copyIn, remove). */
  file: number;
  /** Interactive sessions opened (a pdb process each). */
  sessionOpen: number;
  /** Lines written to a session's PTY (`send`: one write, then a read up to the prompt). */
  sessionSend: number;
  /** Reads without a write (`read`: start-up output). */
  sessionRead: number;
  sessionInterrupt: number;
}

export function zeroCounts(): CallCounts {
  return { run: 0, file: 0, sessionOpen: 0, sessionSend: 0, sessionRead: 0, sessionInterrupt: 0 };
}

export function diffCounts(after: CallCounts, before: CallCounts): CallCounts {
  const out = zeroCounts();
  for (const key of Object.keys(out) as (keyof CallCounts)[]) out[key] = after[key] - before[key];
  return out;
}

export class InstrumentedTerminal implements Terminal {
  readonly counts: CallCounts = zeroCounts();
  /** Wall milliseconds spent inside terminal calls, by kind (`start`, `copyIn`, `run`, `file`, `session`). */
  readonly busyMs: Record<string, number> = {};
  /** Counts of session traffic by the line written (what one pdb step sends). */
  readonly sentLines: string[] = [];
  recorder: Recording | null = null;

  constructor(readonly inner: Terminal) {}

  get kind(): TerminalKind {
    return this.inner.kind;
  }
  get workdir(): string {
    return this.inner.workdir;
  }
  get python(): string {
    return this.inner.python;
  }
  get started(): boolean {
    return this.inner.started;
  }

  start(): Promise<void> {
    return this.timed('start', () => this.inner.start());
  }
  /** The inner terminal's fork server (absent when it has none): its start-up shows as `forkServer` time. */
  get startForkServer(): ((options?: ForkServerOptions) => Promise<ForkServerStatus>) | undefined {
    const inner = this.inner;
    if (!inner.startForkServer) return undefined;
    return (options) => this.timed('forkServer', () => (inner.startForkServer as NonNullable<Terminal['startForkServer']>)(options));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  run(command: string, options?: RunOptions): Promise<RunResult> {
    this.counts.run += 1;
    return this.track(`run:${command}`, () => this.inner.run(command, options));
  }

  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array> {
    return this.file(`readFile:${path}`, () => this.inner.readFile(path, options));
  }
  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.file(`writeFile:${path}`, () => this.inner.writeFile(path, data));
  }
  readDir(path: string): Promise<DirEntry[]> {
    return this.file(`readDir:${path}`, () => this.inner.readDir(path));
  }
  stat(path: string): Promise<FileStat | null> {
    return this.file(`stat:${path}`, () => this.inner.stat(path));
  }
  realPath(path: string): Promise<string> {
    return this.file(`realPath:${path}`, () => this.inner.realPath(path));
  }
  copyIn(hostDir: string, targetDir?: string): Promise<void> {
    return this.file(`copyIn:${hostDir}`, () => this.inner.copyIn(hostDir, targetDir));
  }
  remove(path: string): Promise<void> {
    return this.file(`remove:${path}`, () => this.inner.remove(path));
  }

  async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    this.counts.sessionOpen += 1;
    const session = await this.timed('session', () => this.inner.openSession(command, options));
    return new CountingSession(session, command, this);
  }

  private file<T>(key: string, call: () => Promise<T>): Promise<T> {
    this.counts.file += 1;
    return this.track(key, call);
  }

  private async timed<T>(kind: string, call: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await call();
    } finally {
      this.busyMs[kind] = (this.busyMs[kind] ?? 0) + performance.now() - start;
    }
  }

  /** @internal Run a call (timed under its kind) and, when recording, keep its outcome under `key`. */
  async track<T>(key: string, call: () => Promise<T>): Promise<T> {
    const colon = key.indexOf(':');
    const method = colon < 0 ? key : key.slice(0, colon);
    const kind = method === 'run' || method === 'copyIn' ? method : ['read', 'send', 'interrupt'].includes(method) ? 'session' : 'file';
    if (!this.recorder) return this.timed(kind, call);
    try {
      const value = await this.timed(kind, call);
      this.recorder.add(key, { value });
      return value;
    } catch (error) {
      this.recorder.add(key, { error });
      throw error;
    }
  }
}

class CountingSession implements TerminalSession {
  constructor(
    private readonly inner: TerminalSession,
    private readonly command: string,
    private readonly owner: InstrumentedTerminal,
  ) {}

  get id(): string {
    return this.inner.id;
  }
  get closed(): boolean {
    return this.inner.closed;
  }
  get launch(): LaunchInfo | undefined {
    return this.inner.launch;
  }

  read(options?: { timeoutMs?: number }): Promise<SessionReadResult> {
    this.owner.counts.sessionRead += 1;
    return this.owner.track(`read:${this.command}`, () => this.inner.read(options));
  }
  send(line: string, options?: { timeoutMs?: number }): Promise<SessionReadResult> {
    this.owner.counts.sessionSend += 1;
    this.owner.sentLines.push(line);
    return this.owner.track(`send:${line}`, () => this.inner.send(line, options));
  }
  interrupt(options?: { timeoutMs?: number }): Promise<SessionReadResult> {
    this.owner.counts.sessionInterrupt += 1;
    return this.owner.track('interrupt', () => this.inner.interrupt(options));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
