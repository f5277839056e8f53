import { SessionClosedError, type LaunchInfo, type PythonLaunch, type SessionReadResult, type Terminal, type TerminalSession } from '@debug-gym/spec';
import { CONTROL_PREFIX, NONCE_ENV, newNonce, parseOutput, type ParsedOutput, type PdbState, stateClose } from './protocol.js';

/** One exchange with pdb: what it printed, and its state at the prompt that ended the read. */
export interface Exchange {
  text: string;
  /** Null when no prompt came back (timeout, or the process exited). */
  state: PdbState | null;
  timedOut: boolean;
  exited: boolean;
}

export interface OpenOptions {
  /** The entrypoint as the agent or config gave it (shown in messages). */
  entrypoint: string;
  /** The shell command that runs it under the driver. */
  command: string;
  timeoutMs: number;
  /** The working copy as the workspace names it (pdb may see it under its real path). */
  workdir: string;
  /** The command as a python launch the terminal's fork server may start. */
  python?: PythonLaunch;
}

/** Environment of the pdb process: no readline escapes, no colours, no stray `.pyc` files. */
const SESSION_ENV: Record<string, string> = { TERM: 'dumb', NO_COLOR: '1', PYTHONDONTWRITEBYTECODE: '1', PYTHONSTARTUP: '' };

const MIN_STARTUP_MS = 60_000;

/** A pdb process under the driver, from its first prompt on. */
export class PdbSession {
  /** State at the latest prompt. */
  state: PdbState | null = null;
  /** Output before the first prompt (e.g. `> …/pytest/__main__.py(1)<module>()`), or the failure output. */
  startupText = '';
  /** The first prompt came back. */
  started = false;
  /** Facts from the first state. */
  pid: number | undefined;
  cwd: string | undefined;
  loaded: readonly string[] = [];
  /** `seq` of the latest state: a state that is not newer was replayed by the program, not a prompt. */
  private lastSeq = 0;
  /** Every line sent to the process since it started (what `env.fork()` replays to reach the same point). */
  readonly history: string[] = [];

  private constructor(
    readonly entrypoint: string,
    private readonly session: TerminalSession,
    private readonly workdir: string,
  ) {}

  /** Resolves once the first prompt came back (or start-up failed: see `started`). Never rejects. */
  ready: Promise<void> = Promise.resolve();

  /** Start the process; `ready` tracks its start-up, and `close()` may be called before it settles. */
  static async launch(terminal: Terminal, options: OpenOptions): Promise<PdbSession> {
    // The nonce is in the session's environment only: the driver removes it before the program runs.
    const nonce = newNonce();
    const env = { ...SESSION_ENV, [NONCE_ENV]: nonce };
    const raw = await terminal.openSession(options.command, {
      prompt: stateClose(nonce),
      timeoutMs: options.timeoutMs,
      env,
      ...(options.python ? { python: options.python } : {}),
    });
    const session = new PdbSession(options.entrypoint, raw, options.workdir);
    // pdb stops before the program's first line, so start-up is imports only; a short command
    // time limit must not make a slow sandbox look like a broken entrypoint.
    session.ready = session.readStartup(Math.max(options.timeoutMs, MIN_STARTUP_MS)).catch((error: unknown) => {
      session.startupText = `The pdb session failed while starting: ${String(error)}`;
    });
    return session;
  }

  /** How the process was started (forked or cold), when the terminal was asked to fork it. */
  get launch(): LaunchInfo | undefined {
    return this.session.launch;
  }

  get alive(): boolean {
    return this.started && !this.session.closed;
  }

  /** The current frame as `relative/path.py:line` (relative to the working copy), or null. */
  get position(): string | null {
    const frame = this.state?.frame;
    if (!frame) return null;
    const file = this.fromPdbPath(frame.file);
    const relative = file.startsWith(`${this.workdir}/`) ? file.slice(this.workdir.length + 1) : file;
    return `${relative}:${frame.line}`;
  }

  /** A path as pdb reports it → the same path under the workspace's name for the working copy. */
  fromPdbPath(path: string): string {
    return swapPrefix(path, this.cwd, this.workdir);
  }

  /** A workspace path → the name pdb uses for it. */
  toPdbPath(path: string): string {
    return swapPrefix(path, this.workdir, this.cwd);
  }

  /** Send lines one by one (one prompt each) and collect everything up to the last prompt. */
  async send(lines: readonly string[], timeoutMs: number): Promise<Exchange> {
    let exchange: Exchange | null = null;
    for (const line of lines) {
      if (this.session.closed) throw new SessionClosedError('the pdb process is not running');
      this.history.push(line);
      const next = await this.complete(await this.exchange(this.session.send(line, { timeoutMs }), timeoutMs), timeoutMs);
      exchange = exchange ? { ...next, text: exchange.text + next.text } : next;
      if (!next.state) break;
    }
    return exchange ?? { text: '', state: this.state, timedOut: false, exited: this.session.closed };
  }

  /**
   * A read that reached the prompt but lost the state to the output cap (a program printed
   * megabytes): ask for the state again; the command's (truncated) output is kept.
   */
  private async complete(exchange: Exchange, timeoutMs: number): Promise<Exchange> {
    // No prompt reached: the read timed out or the process ended.
    if (exchange.state || exchange.timedOut || exchange.exited) return exchange;
    this.history.push(`${CONTROL_PREFIX}state`);
    const again = await this.exchange(this.session.send(`${CONTROL_PREFIX}state`, { timeoutMs }), timeoutMs);
    return { ...again, text: exchange.text + again.text };
  }

  /** Ctrl-C, then read until the prompt. */
  async interrupt(timeoutMs: number): Promise<Exchange> {
    if (this.session.closed) return { text: '', state: null, timedOut: false, exited: true };
    return this.exchange(this.session.interrupt({ timeoutMs }), timeoutMs);
  }

  async close(): Promise<void> {
    await this.session.close().catch(() => undefined);
  }

  private async readStartup(timeoutMs: number): Promise<void> {
    const exchange = await this.exchange(this.session.read({ timeoutMs }), timeoutMs);
    this.startupText = exchange.text.trim();
    if (!exchange.state) {
      if (exchange.timedOut) this.startupText += `\n(no pdb prompt after ${Math.round(timeoutMs / 1000)} seconds)`;
      await this.close();
      return;
    }
    this.started = true;
    this.pid = exchange.state.pid;
    this.cwd = exchange.state.cwd;
    this.loaded = exchange.state.loaded ?? [];
  }

  /**
   * What the process printed up to its next prompt, and its state there. A read that ended with an
   * old state (the program replayed pdb's output, e.g. from a capture) did not reach a prompt: keep
   * reading; the replayed state block is dropped from the text.
   */
  private async exchange(pending: Promise<SessionReadResult>, timeoutMs: number): Promise<Exchange> {
    let result = await pending;
    let before = '';
    for (;;) {
      const parsed: ParsedOutput = result.promptSeen ? parseOutput(result.output) : { text: result.output, state: null };
      const replayed = parsed.state !== null && !this.isNew(parsed.state);
      if (!replayed || this.session.closed) {
        const state = replayed ? null : parsed.state;
        if (state) {
          this.state = state;
          this.lastSeq = state.seq ?? this.lastSeq;
        }
        return { text: before + parsed.text, state, timedOut: result.timedOut, exited: result.exited || this.session.closed };
      }
      before += parsed.text;
      result = await this.session.read({ timeoutMs });
    }
  }

  private isNew(state: PdbState): boolean {
    return state.seq === undefined || state.seq > this.lastSeq;
  }
}

function swapPrefix(path: string, from: string | undefined, to: string | undefined): string {
  if (!from || !to || from === to) return path;
  if (path === from) return to;
  return path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : path;
}
