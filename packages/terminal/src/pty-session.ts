import { spawn as spawnPty, type IPty } from 'node-pty';
import type { ProcessSpec } from './run-process.js';
import { killGroup } from './kill-group.js';
import { PromptSession, type PromptSessionOptions } from './prompt-session.js';

export interface PtySessionOptions extends PromptSessionOptions {
  onClosed?: (session: PtySession) => void;
}

/**
 * An interactive program in a PTY. Reads are event driven: they resolve in the data callback that
 * completes the prompt, so a pdb round trip costs no more than the program itself.
 */
export class PtySession extends PromptSession {
  private readonly pty: IPty;

  constructor(
    spec: ProcessSpec,
    private readonly options: PtySessionOptions,
  ) {
    super(options);
    this.pty = spawnPty(spec.file, spec.args, {
      name: spec.env.TERM ?? 'xterm',
      cols: 200,
      rows: 50,
      cwd: spec.cwd,
      env: spec.env,
      encoding: null,
    });
    this.pty.onData((data) => this.receive(data as unknown as Buffer));
    this.pty.onExit(({ exitCode, signal }) => this.markEnded(signal ? null : exitCode));
  }

  /** Process id of the session leader (its process group id too). */
  get pid(): number {
    return this.pty.pid;
  }

  async close(): Promise<void> {
    if (this.closedByUs) return;
    this.closedByUs = true;
    this.wakeReader();
    // The PTY child is a session leader, so its pid is also its process group id.
    if (!this.ended) killGroup(this.pty.pid);
    await this.waitForEnd();
    // Only when the exit never came: destroy() SIGHUPs the pid, which must not be a reused one.
    if (!this.ended) (this.pty as IPty & { destroy?: () => void }).destroy?.();
    this.options.onClosed?.(this);
  }

  protected writeData(data: string): void {
    this.pty.write(data);
  }
}
