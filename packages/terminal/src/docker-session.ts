/**
 * Interactive sessions (pdb) for the Docker backend: a PTY opened by the in-container helper (no
 * `docker exec` per session), its output and exit relayed over the helper's connection. Reading
 * follows the shared PromptSession rules, like the local PtySession.
 */
import type { LaunchInfo, PythonLaunch } from '@debug-gym/core';
import { PromptSession, type PromptSessionOptions } from './prompt-session.js';
import type { HelperClient, PtyListener } from './docker-helper-client.js';
import { launchOf, pythonParam } from './fork-server.js';

/** Terminal size of session PTYs (wide, so pdb listings do not wrap). */
export const SESSION_COLUMNS = 200;
export const SESSION_ROWS = 50;

export interface DockerSessionOptions extends PromptSessionOptions {
  /** Queue bytes for the program's input. */
  write: (data: string) => void;
  /** SIGKILL the session's process group inside the container (best effort). */
  kill: (pid: number) => Promise<void>;
  onClosed?: (session: DockerSession) => void;
}

export class DockerSession extends PromptSession implements PtyListener {
  private pidValue: number | undefined;
  /** Which path started the program (set when it was opened with `python`). */
  launch: LaunchInfo | undefined;

  constructor(private readonly options: DockerSessionOptions) {
    super(options);
  }

  /** Pid of the session's process inside the container (also its process group id). */
  get pid(): number | undefined {
    return this.pidValue;
  }

  /** Set once the helper has started the program. */
  attach(pid: number): void {
    this.pidValue = pid;
  }

  data(chunk: Buffer): void {
    if (!this.closedByUs) this.receive(chunk);
  }

  exit(code: number | null): void {
    if (this.ended) return;
    this.markEnded(code);
    if (!this.closedByUs) this.options.onClosed?.(this);
  }

  async close(): Promise<void> {
    if (this.closedByUs) return;
    this.closedByUs = true;
    this.wakeReader();
    if (!this.ended && this.pidValue !== undefined) {
      await this.options.kill(this.pidValue).catch(() => undefined);
      await this.waitForEnd();
    }
    this.options.onClosed?.(this);
  }

  /** Stop listening without killing anything (the container is going away anyway). */
  detach(): void {
    this.closedByUs = true;
    this.wakeReader();
  }

  protected writeData(data: string): void {
    this.options.write(data);
  }
}

export interface HelperSessionRequest {
  command: string;
  /** Absolute working directory inside the sandbox. */
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  timeoutMs: number;
  maxOutputBytes: number;
  /** The sandbox's open sessions: the new one is added once open and removed when it closes. */
  sessions: Set<DockerSession>;
  /** The command is `<python> ARGS`: the fork server may start it. */
  python?: PythonLaunch;
  /** Sent with `python`: the parent-death signal the cold command has (the local backend's). */
  pdeathsig?: number;
  /** Sent with `python`: which of the helper's fork servers starts it (see pythonParam). */
  forkServer?: string;
  /** False: return null when the fork server does not start it (the caller runs its own cold path). */
  fallback?: boolean;
}

/**
 * Open `request.command` in a PTY the helper runs (Docker and bubblewrap alike). A helper that is
 * gone surfaces as its HelperLostError; the caller maps it to the sandbox's own error.
 */
export async function openHelperSession(helper: HelperClient, request: HelperSessionRequest & { fallback: false }): Promise<DockerSession | { refused: string }>;
export async function openHelperSession(helper: HelperClient, request: HelperSessionRequest): Promise<DockerSession>;
export async function openHelperSession(helper: HelperClient, request: HelperSessionRequest): Promise<DockerSession | { refused: string }> {
  let sid = 0;
  const session = new DockerSession({
    prompt: request.prompt,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    write: (data) => helper.writePty(sid, data),
    kill: async (pid) => {
      if (helper.lost) return;
      await helper.call('kill', { pid, signal: 9, group: true }).catch(() => undefined);
      await helper.call('kill', { pid, signal: 9, group: false }).catch(() => undefined);
    },
    onClosed: (closed) => request.sessions.delete(closed),
  });
  const opened = await helper.openPty(
    {
      cmd: request.command,
      cwd: request.cwd,
      env: request.env,
      rows: SESSION_ROWS,
      cols: SESSION_COLUMNS,
      ...(request.python ? { python: pythonParam(request.python, request.pdeathsig, request.forkServer), ...(request.fallback === false ? { fallback: false } : {}) } : {}),
    },
    session,
  );
  if ('refused' in opened) return opened;
  sid = opened.sid;
  session.launch = launchOf(opened.response);
  session.attach(opened.pid);
  request.sessions.add(session);
  return session;
}
