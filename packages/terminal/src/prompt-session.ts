/**
 * What every interactive session backend shares: the read queue, `read`/`send`/`interrupt`, prompt
 * detection over the tail of the received bytes, the wake/timeout logic, the output cap and the
 * normalized result. A backend only writes bytes, feeds received bytes in and reports the end.
 *
 * Rules: a read returns everything since the previous read, and `promptSeen` means the received
 * text ends with the prompt. Reads resolve in the data callback that completes the prompt, so a
 * pdb round trip costs no more than the program itself.
 */
import { randomBytes } from 'node:crypto';
import type { SessionReadResult, TerminalSession } from '@debug-gym/core';
import { OutputCap, SessionClosedError, normalizeOutput } from '@debug-gym/core';

export interface PromptSessionOptions {
  prompt: string;
  timeoutMs: number;
  maxOutputBytes: number;
}

type Reason = 'prompt' | 'exit' | 'timeout';

/** How long close() waits for a killed program's end to be seen. */
const EXIT_WAIT_MS = 2_000;

export abstract class PromptSession implements TerminalSession {
  readonly id = randomBytes(6).toString('hex');
  /** The program ended (exited, or its stream ended): set by `markEnded`. */
  protected ended = false;
  protected exitCode: number | null = null;
  private endSeen!: () => void;
  private readonly endPromise = new Promise<void>((resolve) => {
    this.endSeen = resolve;
  });
  protected closedByUs = false;
  private readonly promptBytes: Buffer;
  private cap: OutputCap;
  /** The last `prompt.length` bytes received since the last read returned. */
  private tail = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  protected constructor(private readonly settings: PromptSessionOptions) {
    this.promptBytes = Buffer.from(settings.prompt, 'utf8');
    this.cap = new OutputCap(settings.maxOutputBytes);
  }

  get closed(): boolean {
    return this.ended || this.closedByUs;
  }

  abstract close(): Promise<void>;

  read(options: { timeoutMs?: number } = {}): Promise<SessionReadResult> {
    if (this.closedByUs) return Promise.reject(new SessionClosedError('close() was called'));
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const next = this.queue.then(() => this.readNow(timeoutMs));
    this.queue = next.catch(() => undefined);
    return next;
  }

  async send(line: string, options: { timeoutMs?: number } = {}): Promise<SessionReadResult> {
    this.write(`${line}\n`);
    return this.read(options);
  }

  async interrupt(options: { timeoutMs?: number } = {}): Promise<SessionReadResult> {
    this.write('\x03');
    return this.read(options);
  }

  /** The program ended with `code` (null: killed by a signal, or unknown). Only the first call counts. */
  protected markEnded(code: number | null): void {
    if (this.ended) return;
    this.ended = true;
    this.exitCode = code;
    this.endSeen();
    this.wakeReader();
  }

  /** Resolves once the end is known, or after EXIT_WAIT_MS (what close() waits after a kill). */
  protected async waitForEnd(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.endPromise, new Promise((resolve) => (timer = setTimeout(resolve, EXIT_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** Send bytes to the program (only called while the session is open). */
  protected abstract writeData(data: string): void;

  /** Bytes the program printed: kept for the next read, which they may complete with the prompt. */
  protected receive(chunk: Buffer): void {
    this.keep(chunk);
    const keep = this.promptBytes.length;
    this.tail = keep === 0 ? this.tail : Buffer.concat([this.tail, chunk]).subarray(-keep);
    if (this.promptAtEnd()) this.wakeReader();
  }

  /** Bytes kept for the next read without looking for the prompt in them. */
  protected keep(chunk: Buffer): void {
    this.cap.push(chunk);
  }

  /** Let a waiting read re-check whether it can return (after an end or close). */
  protected wakeReader(): void {
    this.wake?.();
  }

  private write(data: string): void {
    if (this.closedByUs) throw new SessionClosedError('close() was called');
    if (this.ended) throw new SessionClosedError(`the program exited with code ${this.exitCode ?? 'none (killed)'}`);
    this.writeData(data);
  }

  private promptAtEnd(): boolean {
    return this.promptBytes.length > 0 && this.tail.equals(this.promptBytes);
  }

  private readNow(timeoutMs: number): Promise<SessionReadResult> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined = undefined;
      let done = false;
      const finish = (reason: Reason): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        this.wake = undefined;
        resolve(this.take(reason));
      };
      const check = (): boolean => {
        if (this.promptAtEnd()) finish('prompt');
        else if (this.closedByUs) finish('exit');
        else if (this.ended) finish('exit');
        else return false;
        return true;
      };
      if (check()) return;
      this.wake = check;
      timer = setTimeout(() => finish('timeout'), timeoutMs);
    });
  }

  /** Everything received since the last read, as a result; starts a fresh buffer. */
  private take(reason: Reason): SessionReadResult {
    const { cap } = this;
    const { prompt, maxOutputBytes } = this.settings;
    this.cap = new OutputCap(maxOutputBytes);
    this.tail = Buffer.alloc(0);
    let raw = cap.text();
    if (reason === 'prompt' && raw.endsWith(prompt)) raw = raw.slice(0, raw.length - prompt.length);
    return {
      output: normalizeOutput(raw),
      rawOutput: raw,
      promptSeen: reason === 'prompt',
      timedOut: reason === 'timeout',
      exited: this.ended || this.closedByUs,
      exitCode: this.exitCode,
      droppedBytes: cap.droppedBytes,
    };
  }
}
