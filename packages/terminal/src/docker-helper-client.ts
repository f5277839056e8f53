/**
 * Node side of the in-container helper protocol (see docker-helper-source.ts): demultiplexes the
 * hijacked attach (or `docker exec`) stream (8-byte frame headers, since `Tty: false`), splits stdout into
 * JSON lines, matches responses to requests by id so many requests can be in flight at once, and
 * routes PTY session events to their sessions.
 */
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { HELPER_BOOTSTRAP, HELPER_SOURCE } from './docker-helper-source.js';
import { SANDBOX_BIN_DIR, pythonWrapper } from './python-wrappers.js';

export interface HelperResponse {
  id: number;
  ok: boolean;
  errno?: string;
  error?: string;
  [key: string]: unknown;
}

/** The helper process went away (its stream ended) while requests were pending or being sent. */
export class HelperLostError extends Error {
  constructor(readonly detail: string) {
    super(`The sandbox helper process is gone${detail ? `: ${detail}` : ''}`);
    this.name = 'HelperLostError';
  }
}

/** The helper died because of the command it was running; the container is still fine. */
export class HelperKilledError extends Error {
  constructor() {
    super('The command killed the sandbox helper process.');
    this.name = 'HelperKilledError';
  }
}

/** The helper answered `ok: false`. */
export class HelperOpError extends Error {
  constructor(
    readonly op: string,
    readonly errno: string,
    message: string,
  ) {
    super(message);
    this.name = 'HelperOpError';
  }
}

export interface PtyOpenParams {
  cmd: string;
  cwd: string;
  env: Record<string, string>;
  rows: number;
  cols: number;
  /** The command is `<python> ARGS`: the fork server may start it (see fork-server.ts). */
  python?: Record<string, unknown>;
  /** False: when the fork server does not start it, answer `refused` instead of running `cmd`. */
  fallback?: boolean;
}

/** An opened session (its helper answer carries `via`/`reason`), or why the fork server refused it. */
export type PtyOpened = { sid: number; pid: number; response: HelperResponse } | { refused: string };

/** Receives the output and the exit of one PTY session the helper runs. */
export interface PtyListener {
  data(chunk: Buffer): void;
  /** The program exited (its code; null when killed by a signal or when the helper is gone). */
  exit(code: number | null): void;
}

interface PtyEvent {
  ev: 'data' | 'exit';
  sid: number;
  data?: string;
  code?: number | null;
}

interface Pending {
  op: string;
  resolve: (response: HelperResponse) => void;
  reject: (error: Error) => void;
}

const STDERR_TAIL = 4096;
/** Id of the line the sandbox's PID 1 prints when the helper it started exits. */
const EXITED_ID = -1;
const STDERR_GRACE_MS = 50;

export class HelperClient {
  private nextId = 1;
  private nextSid = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly ptys = new Map<number, PtyListener>();
  private frameBuffer: Buffer = Buffer.alloc(0);
  private lineParts: Buffer[] = [];
  private stderrTail = '';
  private lostError: HelperLostError | undefined;
  private readyResolve!: (info: HelperResponse) => void;
  private readyReject!: (error: Error) => void;
  /** Resolves with the helper's hello line (`{ready, python, pid}`), rejects when it dies before. */
  readonly ready: Promise<HelperResponse>;

  /**
   * `framing`: `docker` for an attach or exec stream (8-byte frame headers, stdout and stderr
   * multiplexed), `raw` for plain pipes (stdout only; feed stderr with `stderr()`).
   */
  constructor(
    private readonly stream: Duplex,
    private readonly framing: 'docker' | 'raw' = 'docker',
  ) {
    this.ready = new Promise((resolve, reject) => {
      this.readyResolve = resolve;
      this.readyReject = reject;
    });
    this.ready.catch(() => undefined);
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('end', () => this.onLost('its output stream ended'));
    stream.on('close', () => this.onLost('its connection closed'));
    stream.on('error', (error: Error) => this.onLost(error.message));
  }

  /** Send the helper source the bootstrap is waiting for. */
  sendSource(): void {
    this.stream.write(HELPER_SOURCE);
  }

  get lost(): boolean {
    return this.lostError !== undefined;
  }

  request(op: string, params: Record<string, unknown> = {}): Promise<HelperResponse> {
    if (this.lostError) return Promise.reject(this.lostError);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { op, resolve, reject });
      this.stream.write(`${JSON.stringify({ ...params, id, op })}\n`);
    });
  }

  /** Like `request`, but a `ok: false` answer becomes a rejected HelperOpError. */
  async call(op: string, params: Record<string, unknown> = {}): Promise<HelperResponse> {
    const response = await this.request(op, params);
    if (!response.ok) throw new HelperOpError(op, response.errno ?? 'EIO', response.error ?? 'unknown helper error');
    return response;
  }

  /**
   * Start `cmd` in a PTY opened by the helper (echo off, `rows` × `cols`, its own session with the
   * PTY as controlling terminal). The listener is registered before the request goes out, so no
   * output is missed. Resolves with the pid (also the process group id).
   */
  async openPty(params: PtyOpenParams, listener: PtyListener): Promise<PtyOpened> {
    const sid = this.nextSid++;
    this.ptys.set(sid, listener);
    try {
      const response = await this.call('pty_open', { ...params, sid });
      if (typeof response.refused === 'string') {
        this.ptys.delete(sid);
        return { refused: response.refused };
      }
      return { sid, pid: Number(response.pid), response };
    } catch (error) {
      this.ptys.delete(sid);
      throw error;
    }
  }

  /** Queue bytes for a PTY session's input (in order; a write to an ended session is dropped). */
  writePty(sid: number, data: string): void {
    this.request('pty_write', { sid, data: Buffer.from(data, 'utf8').toString('base64') }).catch(() => undefined);
  }

  /** Close the helper's stdin (it then exits) and drop the connection. */
  close(): void {
    this.onLost('closed');
    this.stream.destroy();
  }

  /** Output the helper wrote to its stderr (raw framing): kept for error messages. */
  stderr(chunk: Buffer): void {
    this.onStderr(chunk);
  }

  private onData(chunk: Buffer): void {
    if (this.framing === 'raw') {
      this.onStdout(chunk);
      return;
    }
    this.frameBuffer = this.frameBuffer.length === 0 ? chunk : Buffer.concat([this.frameBuffer, chunk]);
    let offset = 0;
    while (this.frameBuffer.length - offset >= 8) {
      const type = this.frameBuffer[offset]!;
      const size = this.frameBuffer.readUInt32BE(offset + 4);
      if (this.frameBuffer.length - offset - 8 < size) break;
      const payload = this.frameBuffer.subarray(offset + 8, offset + 8 + size);
      offset += 8 + size;
      if (type === 2) this.onStderr(payload);
      else this.onStdout(payload);
    }
    this.frameBuffer = offset === this.frameBuffer.length ? Buffer.alloc(0) : this.frameBuffer.subarray(offset);
  }

  private onStderr(payload: Buffer): void {
    this.stderrTail = (this.stderrTail + payload.toString('utf8')).slice(-STDERR_TAIL);
  }

  private onStdout(payload: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = payload.indexOf(10, start);
      if (newline < 0) break;
      const piece = payload.subarray(start, newline);
      const line = this.lineParts.length ? Buffer.concat([...this.lineParts, piece]) : piece;
      this.lineParts = [];
      this.onLine(line);
      start = newline + 1;
    }
    if (start < payload.length) this.lineParts.push(Buffer.from(payload.subarray(start)));
  }

  private onLine(line: Buffer): void {
    let message: HelperResponse;
    try {
      message = JSON.parse(line.toString('utf8')) as HelperResponse;
    } catch {
      this.onStderr(Buffer.concat([line, Buffer.from('\n')]));
      return;
    }
    if ((message as unknown as PtyEvent).ev !== undefined) {
      this.onPtyEvent(message as unknown as PtyEvent);
      return;
    }
    if (message.id === EXITED_ID) {
      // The engine relays stdout and stderr separately: give what it printed last a moment to arrive.
      setTimeout(() => {
        this.onLost(`it exited with code ${String(message.exited)}`);
        this.stream.destroy();
      }, STDERR_GRACE_MS).unref();
      return;
    }
    if (message.id === 0 && message.ready) {
      this.readyResolve(message);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    pending.resolve(message);
  }

  private onPtyEvent(event: PtyEvent): void {
    const listener = this.ptys.get(event.sid);
    if (!listener) return;
    if (event.ev === 'data') {
      listener.data(Buffer.from(event.data ?? '', 'base64'));
    } else {
      this.ptys.delete(event.sid);
      listener.exit(typeof event.code === 'number' ? event.code : null);
    }
  }

  private onLost(reason: string): void {
    if (this.lostError) return;
    // The PTYs die with the helper (their masters close).
    const ptys = [...this.ptys.values()];
    this.ptys.clear();
    for (const listener of ptys) listener.exit(null);
    const stderr = this.stderrTail.trim();
    this.lostError = new HelperLostError(stderr ? `${reason}; stderr: ${stderr.slice(-1000)}` : reason);
    this.readyReject(this.lostError);
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(this.lostError);
  }
}

/** Shell: tell on stderr that none of `tried` (a shell word list) is an interpreter here. */
function noPython(tried: string): string {
  return `echo "no Python interpreter found in the image (tried ${tried})" >&2`;
}

/** The arguments after a launcher script: `$0` the interpreter, `$1` the bootstrap, `$2` the source length. */
function launcherArgs(python: string): string[] {
  return [python, HELPER_BOOTSTRAP, String(Buffer.byteLength(HELPER_SOURCE, 'utf8'))];
}

/** Variables that carry the helper's launch data to the container's PID 1 (the helper drops them). */
export const LAUNCH_ENV_PREFIX = 'DEBUG_GYM_HELPER_';

/**
 * The command and extra environment of every sandbox container (PID 1 under the init): start the
 * helper on the container's stdin/stdout (the client attaches before the start, so no
 * `docker exec` is needed), print `{"id":-1,"exited":N}` when it exits (the attach stream stays
 * open, as the container does), then sleep forever, exiting at once on SIGTERM (so a stop never
 * waits). The script and its data travel in variables, not in arguments: PID 1's command line
 * must not match a `pkill -f python` or `pkill -f exec(compile` run inside the sandbox.
 */
export function sandboxLaunch(python: string): { cmd: string[]; env: string[] } {
  const script = [
    "trap 'exit 0' TERM INT",
    'exec 3<&0 0</dev/null',
    `interpreters=$${LAUNCH_ENV_PREFIX}INTERPRETERS boot=$${LAUNCH_ENV_PREFIX}BOOTSTRAP size=$${LAUNCH_ENV_PREFIX}SIZE`,
    `unset ${LAUNCH_ENV_PREFIX}INTERPRETERS ${LAUNCH_ENV_PREFIX}BOOTSTRAP ${LAUNCH_ENV_PREFIX}SIZE ${LAUNCH_ENV_PREFIX}LAUNCH`,
    // python, python3, pip, pip3: the configured interpreter (python-wrappers.ts), in a directory of
    // root's on the /run tmpfs, first on the helper's PATH and so on every command's. /run/lock is
    // world-writable in the images' own /run, which the tmpfs hides.
    'py=',
    'for p in $interpreters; do if command -v "$p" >/dev/null 2>&1; then py=$p; break; fi; done',
    `bin=${SANDBOX_BIN_DIR}`,
    'if [ -n "$py" ] && mkdir -p "$bin" 2>/dev/null; then',
    `  for n in python python3; do printf '%s' "$${LAUNCH_ENV_PREFIX}PYTHON_SH" > "$bin/$n"; done`,
    `  for n in pip pip3; do printf '%s' "$${LAUNCH_ENV_PREFIX}PIP_SH" > "$bin/$n"; done`,
    '  chmod 755 "$bin"/* && PATH="$bin:$PATH" && export PATH',
    'fi 2>/dev/null',
    '[ -d /run/lock ] || mkdir -p -m 1777 /run/lock 2>/dev/null',
    `unset ${LAUNCH_ENV_PREFIX}PYTHON_SH ${LAUNCH_ENV_PREFIX}PIP_SH bin`,
    'helper=',
    'if [ -n "$py" ]; then "$py" -I -S -c "$boot" "$size" <&3 3<&- & helper=$!; fi',
    'exec 3<&-',
    `if [ -n "$helper" ]; then wait "$helper"; code=$?; else ${noPython('$interpreters')}; code=127; fi`,
    `printf '{"id":${EXITED_ID},"exited":%s}\\n' "$code"`,
    'while :; do sleep 3600 & wait $!; done',
  ].join('\n');
  const [, bootstrap, size] = launcherArgs(python);
  return {
    cmd: ['/bin/sh', '-c', `eval "$${LAUNCH_ENV_PREFIX}LAUNCH"`],
    env: [
      `${LAUNCH_ENV_PREFIX}LAUNCH=${script}`,
      `${LAUNCH_ENV_PREFIX}INTERPRETERS=${python} python3 python`,
      `${LAUNCH_ENV_PREFIX}BOOTSTRAP=${bootstrap}`,
      `${LAUNCH_ENV_PREFIX}SIZE=${size}`,
      `${LAUNCH_ENV_PREFIX}PYTHON_SH=${pythonWrapper('python', python, SANDBOX_BIN_DIR)}`,
      `${LAUNCH_ENV_PREFIX}PIP_SH=${pythonWrapper('pip', python, SANDBOX_BIN_DIR)}`,
    ],
  };
}

/** Attach to a created, not yet started sandbox container: its helper's connection once it starts. */
export async function attachHelper(container: Docker.Container): Promise<HelperClient> {
  const stream = (await container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
  return new HelperClient(stream);
}

/**
 * Start another helper in a running `container` with `python` (else python3, else python) and
 * connect to it (after a command killed the first one); engine errors are thrown as they are. The
 * caller sends the source and awaits `ready`.
 */
export async function execHelper(container: Docker.Container, python: string): Promise<HelperClient> {
  const script = `for p in "$0" python3 python; do if command -v "$p" >/dev/null 2>&1; then [ -x ${SANDBOX_BIN_DIR}/python ] && PATH="${SANDBOX_BIN_DIR}:$PATH" && export PATH; exec "$p" -I -S -c "$1" "$2"; fi; done; ${noPython('$0, python3, python')}; exit 127`;
  const exec = await container.exec({
    Cmd: ['/bin/sh', '-c', script, ...launcherArgs(python)],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    WorkingDir: '/',
  });
  const stream = await exec.start({ hijack: true, stdin: true, Tty: false });
  return new HelperClient(stream);
}
