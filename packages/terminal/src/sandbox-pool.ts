/**
 * Warm sandboxes: a pool keeps `size` terminals started (Docker container running with its helper
 * attached, bubblewrap jail up, local working copy made) with their fork server importing, so that
 * `reset()` takes a ready one instead of starting one. Each `PooledTerminal` hands its env one
 * sandbox per `start()` and the pool starts the next in the background.
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

export interface SandboxPoolOptions {
  /** A new, not yet started terminal (the pool starts it): every pooled sandbox is one of these. */
  create: () => Terminal | Promise<Terminal>;
  /** Sandboxes kept started and ready (default 1; 0 starts each on demand, like a plain terminal). */
  size?: number;
  /** Start each pooled sandbox's fork server with these groups (default `['pytest', 'pdb']`); false: none. */
  forkServer?: ForkServerOptions | false;
}

export class SandboxPool {
  /** Started (or starting) sandboxes nobody took yet. */
  private readonly idle: Array<Promise<Terminal>> = [];
  private readonly size: number;
  private closed = false;

  private constructor(
    private readonly options: SandboxPoolOptions,
    /** What every pooled terminal is: its kind and interpreter (from a first, never started, instance). */
    readonly template: Pick<Terminal, 'kind' | 'python'>,
  ) {
    this.size = options.size ?? 1;
    if (!Number.isInteger(this.size) || this.size < 0) throw new EnvConfigError(`A sandbox pool's size must be a whole number ≥ 0, got ${String(options.size)}.`);
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

  /** Resolves once every sandbox the pool holds has started (or failed to): the pool is warm again. */
  async filled(): Promise<void> {
    await Promise.allSettled([...this.idle]);
  }

  /** A started sandbox: a pooled one when there is one, else one started now. The pool refills. */
  async take(): Promise<Terminal> {
    const next = this.idle.shift();
    this.refill();
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
  private closing: Promise<void> = Promise.resolve();

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
    // The old sandbox goes in the background: a reset does not wait for a container's removal.
    if (previous) this.closing = Promise.all([this.closing, previous.close().catch(() => undefined)]).then(() => undefined);
    this.current = await this.pool.take();
  }

  /**
   * Resolves when what the last `start()` left to the background is done: the previous sandbox closed
   * and the pool full again (what a reset that must not compete with it, e.g. a benchmark's, waits for).
   */
  async settled(): Promise<void> {
    await Promise.all([this.closing, this.pool.filled()]);
  }

  async close(): Promise<void> {
    const previous = this.current;
    this.current = undefined;
    await Promise.all([this.closing, previous?.close()]);
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
