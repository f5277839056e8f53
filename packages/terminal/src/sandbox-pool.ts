/**
 * Warm sandboxes: a pool keeps `size` terminals started (Docker container running with its helper
 * attached, bubblewrap jail up, local working copy made) with their fork server importing, so that
 * `reset()` takes a ready one instead of starting one. Each `PooledTerminal` hands its env one
 * sandbox per `start()`; shortly after (`backgroundDelayMs`), so as not to compete with the reset
 * that took it, the pool starts the next and the replaced sandbox is closed, in the background.
 *
 * Pooled sandboxes are ordinary started terminals: each holds its lease (local, bubblewrap) or its
 * ownership labels (Docker), so `debug-gym gc` reclaims them after the driver is SIGKILLed, and a
 * Docker container still goes with its helper's EOF.
 */
import type {
  DirEntry,
  FileStat,
  ForkServerOptions,
  ForkServerStatus,
  ReadFileOptions,
  RunOptions,
  RunResult,
  SessionOptions,
  Terminal,
  TerminalKind,
  TerminalSession,
} from '@debug-gym/core';
import { EnvConfigError, TerminalNotStartedError } from '@debug-gym/core';
import { DelayedTask } from './delayed-task.js';

const DEFAULT_BACKGROUND_DELAY_MS = 250;

export interface SandboxPoolOptions {
  /** A new, not yet started terminal (the pool starts it): every pooled sandbox is one of these. */
  create: () => Terminal | Promise<Terminal>;
  /** Sandboxes kept started and ready (default 1; 0 starts each on demand, like a plain terminal). */
  size?: number;
  /** Start each pooled sandbox's fork server with these groups (default `['pytest', 'pdb']`); false: none. */
  forkServer?: ForkServerOptions | false;
  /**
   * Milliseconds between a `start()` taking a sandbox and the pool starting its replacement and
   * closing the sandbox that start replaced (default 250; 0: at once). A reset runs its first test
   * and starts pdb on both cores of a small machine right after it took the sandbox; a container
   * starting and another being removed beside it (dockerd's work) made a warm Docker reset take nearly
   * twice as long. `close()`, `settled()` and `filled()` do not wait out the delay.
   */
  backgroundDelayMs?: number;
}

export class SandboxPool {
  /** Started (or starting) sandboxes nobody took yet. */
  private readonly idle: Array<Promise<Terminal>> = [];
  private readonly size: number;
  readonly backgroundDelayMs: number;
  private closed = false;
  private pendingRefill: DelayedTask | undefined;

  private constructor(
    private readonly options: SandboxPoolOptions,
    /** What every pooled terminal is: its kind and interpreter (from a first, never started, instance). */
    readonly template: Pick<Terminal, 'kind' | 'python'>,
  ) {
    this.size = options.size ?? 1;
    if (!Number.isInteger(this.size) || this.size < 0) throw new EnvConfigError(`A sandbox pool's size must be a whole number ≥ 0, got ${String(options.size)}.`);
    this.backgroundDelayMs = options.backgroundDelayMs ?? DEFAULT_BACKGROUND_DELAY_MS;
    if (!Number.isFinite(this.backgroundDelayMs) || this.backgroundDelayMs < 0) {
      throw new EnvConfigError(`A sandbox pool's backgroundDelayMs must be a number of milliseconds ≥ 0, got ${String(options.backgroundDelayMs)}.`);
    }
  }

  /** A pool, filling in the background from now on. */
  static async create(options: SandboxPoolOptions): Promise<SandboxPool> {
    const first = await options.create();
    const pool = new SandboxPool(options, { kind: first.kind, python: first.python });
    pool.refill(first);
    return pool;
  }

  /** Sandboxes started and waiting (or still starting). */
  get ready(): number {
    return this.idle.length;
  }

  /** A terminal for one env: each `start()` takes a pooled sandbox (the previous one is closed). */
  terminal(): PooledTerminal {
    return new PooledTerminal(this);
  }

  /** Resolves once the pool is full again and every sandbox in it has started (or failed to). */
  async filled(): Promise<void> {
    await this.pendingRefill?.flush();
    await Promise.allSettled([...this.idle]);
  }

  /** Runs `task` after the pool's background delay (or when the returned task is flushed). */
  later(task: () => Promise<unknown> | unknown): DelayedTask {
    return new DelayedTask(task, this.backgroundDelayMs);
  }

  /** A started sandbox: a pooled one when there is one, else one started now. The pool refills. */
  async take(): Promise<Terminal> {
    const next = this.idle.shift();
    this.pendingRefill ??= this.later(() => {
      this.pendingRefill = undefined;
      this.refill();
    });
    if (next) {
      try {
        return await next;
      } catch {
        // A pooled start that failed (e.g. the engine hiccuped): start one directly, reporting its own error.
      }
    }
    return this.launch();
  }

  /** Close the sandboxes nobody took; those taken belong to their terminals. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pendingRefill?.flush();
    const idle = this.idle.splice(0);
    await Promise.all(idle.map(async (entry) => (await entry.catch(() => undefined))?.close().catch(() => undefined)));
  }

  private refill(first?: Terminal): void {
    while (!this.closed && this.idle.length < this.size) {
      const launched = this.launch(this.idle.length === 0 ? first : undefined);
      first = undefined;
      launched.catch(() => undefined);
      this.idle.push(launched);
    }
  }

  private async launch(given?: Terminal): Promise<Terminal> {
    const terminal = given ?? (await this.options.create());
    await terminal.start();
    if (this.options.forkServer !== false) await terminal.startForkServer?.(this.options.forkServer ?? {});
    return terminal;
  }
}

/** A Terminal whose sandbox comes from a SandboxPool at every `start()`; every call goes to it. */
export class PooledTerminal implements Terminal {
  private current: Terminal | undefined;
  /** Sandboxes a start() replaced, closing (or waiting for the pool's background delay to close). */
  private replaced: DelayedTask[] = [];

  constructor(private readonly pool: SandboxPool) {}

  get kind(): TerminalKind {
    return this.pool.template.kind;
  }

  get python(): string {
    return this.pool.template.python;
  }

  get started(): boolean {
    return this.current?.started === true;
  }

  get workdir(): string {
    return this.require().workdir;
  }

  async start(): Promise<void> {
    const previous = this.current;
    this.current = undefined;
    // The old sandbox goes in the background, after the delay: a reset does not wait for a container's removal.
    if (previous) {
      const task = this.pool.later(() => previous.close());
      this.replaced.push(task);
      void task.done.then(() => {
        this.replaced = this.replaced.filter((entry) => entry !== task);
      });
    }
    this.current = await this.pool.take();
  }

  /**
   * Does now what the last `start()` left for later (close the sandbox it replaced, refill the pool)
   * and resolves when that is done: what a reset that must not compete with it (a benchmark's) waits for.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.replaced.map((task) => task.flush()), this.pool.filled()]);
  }

  async close(): Promise<void> {
    const previous = this.current;
    this.current = undefined;
    await Promise.all([...this.replaced.map((task) => task.flush()), previous?.close()]);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  run(command: string, options?: RunOptions): Promise<RunResult> {
    return this.require().run(command, options);
  }

  openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    return this.require().openSession(command, options);
  }

  startForkServer(options?: ForkServerOptions): Promise<ForkServerStatus> {
    const current = this.require();
    return current.startForkServer ? current.startForkServer(options) : Promise.resolve({ ready: false, reason: `the ${current.kind} terminal has no fork server` });
  }

  async fork(): Promise<Terminal> {
    const current = this.require();
    if (!current.fork) throw new EnvConfigError(`The ${current.kind} terminal cannot fork.`);
    return current.fork();
  }

  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array> {
    return this.require().readFile(path, options);
  }

  writeFile(path: string, data: string | Uint8Array): Promise<void> {
    return this.require().writeFile(path, data);
  }

  readDir(path: string): Promise<DirEntry[]> {
    return this.require().readDir(path);
  }

  stat(path: string): Promise<FileStat | null> {
    return this.require().stat(path);
  }

  realPath(path: string): Promise<string> {
    return this.require().realPath(path);
  }

  copyIn(hostDir: string, targetDir?: string): Promise<void> {
    return this.require().copyIn(hostDir, targetDir);
  }

  remove(path: string): Promise<void> {
    return this.require().remove(path);
  }

  private require(): Terminal {
    if (!this.current) throw new TerminalNotStartedError(this.kind);
    return this.current;
  }
}

/** A pool of `size` sandboxes made by `create` (see SandboxPool). */
export function createSandboxPool(options: SandboxPoolOptions): Promise<SandboxPool> {
  return SandboxPool.create(options);
}
