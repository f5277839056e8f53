import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { BackendName } from '@debug-gym/test-utils';
import { testDockerImage, testPython } from '@debug-gym/test-utils';

/** The built command (`pnpm build` makes it). */
export const serveBin: string = fileURLToPath(new URL('../../../packages/cli/dist/bin.js', import.meta.url));

/** `reset`'s `terminal` param for a backend, as the test backends configure it. */
export function terminalParams(backend: BackendName): Record<string, unknown> {
  if (backend === 'docker') return { type: 'docker', image: testDockerImage, python: 'python3' };
  return { type: backend, python: testPython };
}

export type RpcReply = { jsonrpc: '2.0'; id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

/** The real `debug-gym serve` as a child process, one JSON message per line each way. */
export class ServeClient {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private readonly waiters: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private nextId = 1;
  stderr = '';

  constructor(env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [serveBin, 'serve'], { stdio: 'pipe', env: { ...process.env, ...env } });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-20_000)));
    // A dead server must fail the waiting call, not hang the test.
    this.child.stdin.on('error', () => undefined);
    this.child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      for (const waiter of this.waiters.splice(0)) waiter.reject(this.deadError());
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter.resolve(line);
      else this.lines.push(line);
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  private deadError(): Error {
    return new Error(`debug-gym serve exited (code ${this.exit?.code}, signal ${this.exit?.signal}); stderr:\n${this.stderr}`);
  }

  /** Write raw text (a newline is not added). Waits for the pipe to drain, so huge input is streamed. */
  async write(text: string | Buffer): Promise<void> {
    if (!this.alive) throw this.deadError();
    if (!this.child.stdin.write(text)) {
      await new Promise<void>((resolve, reject) => {
        const onExit = (): void => reject(this.deadError());
        this.child.once('exit', onExit);
        this.child.stdin.once('drain', () => {
          this.child.off('exit', onExit);
          resolve();
        });
      });
    }
  }

  next(): Promise<RpcReply> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line) as RpcReply);
    if (!this.alive) return Promise.reject(this.deadError());
    return new Promise((resolve, reject) => this.waiters.push({ resolve: (text) => resolve(JSON.parse(text) as RpcReply), reject }));
  }

  async call(method: string, params?: unknown): Promise<RpcReply> {
    await this.write(`${JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, ...(params === undefined ? {} : { params }) })}\n`);
    return this.next();
  }

  /** The observation of one `step`, or throws with the JSON-RPC error. */
  async step(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const reply = await this.call('step', { name, arguments: args });
    if (!reply.result) throw new Error(`step ${name} failed: ${JSON.stringify(reply.error)}`);
    return (reply.result.stepObservation as { observation: string }).observation;
  }

  /** Peak resident memory of the server process so far, in bytes (Linux: VmHWM). */
  peakRssBytes(): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
    if (kib === undefined) throw new Error('VmHWM missing from /proc/<pid>/status');
    return Number(kib) * 1024;
  }

  async end(): Promise<void> {
    if (!this.alive) return;
    const closed = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await closed;
  }
}
