/**
 * The local backend's fork server runs behind the same helper program as the sandboxed backends
 * (docker-helper-source.ts), started on this host in "host mode" (no PID 1 to stop, no leftovers
 * killed): the helper passes its pipe and PTY descriptors to the server, which Node cannot do. Only
 * commands the server forks go through it; every cold command keeps the local backend's own path.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Duplex } from 'node:stream';
import { HelperClient } from './docker-helper-client.js';
import { HELPER_BOOTSTRAP_UNDUMPABLE, HELPER_SOURCE } from './docker-helper-source.js';
import { dieWithParent } from './parent-death.js';

const HELPER_START_TIMEOUT_MS = 30_000;
/** How long close() lets the helper exit on EOF (its fork server dies with it) before killing it. */
const CLOSE_GRACE_MS = 2_000;

export interface LocalHelperSpec {
  /** Absolute path of the interpreter. */
  python: string;
  /** The helper's environment: what every command of the terminal gets (requests add theirs on top). */
  env: Record<string, string>;
}

export class LocalForkHelper {
  private readonly exited: Promise<void>;

  private constructor(
    readonly client: HelperClient,
    private readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
  }

  /** Pid (and process group) of the helper. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(spec: LocalHelperSpec): Promise<LocalForkHelper> {
    const launch = dieWithParent({
      file: spec.python,
      args: ['-I', '-S', '-c', HELPER_BOOTSTRAP_UNDUMPABLE, String(Buffer.byteLength(HELPER_SOURCE, 'utf8'))],
      env: { ...spec.env, DEBUG_GYM_HELPER_HOST: '1' },
      cwd: '/',
    });
    const child = spawn(launch.file, launch.args, { stdio: ['pipe', 'pipe', 'pipe'], env: launch.env, cwd: launch.cwd, detached: true });
    const client = new HelperClient(Duplex.from({ readable: child.stdout, writable: child.stdin }), 'raw');
    child.stderr?.on('data', (chunk: Buffer) => client.stderr(chunk));
    child.on('error', () => client.close());
    client.sendSource();
    const timer = setTimeout(() => client.close(), HELPER_START_TIMEOUT_MS);
    try {
      await client.ready;
    } finally {
      clearTimeout(timer);
    }
    return new LocalForkHelper(client, child);
  }

  /** False: holds no event-loop handle, so this process exits as if the helper were not there (it dies with us). */
  keepAlive(keep: boolean): void {
    const method = keep ? 'ref' : 'unref';
    this.child[method]();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) (stream as { ref?: () => void; unref?: () => void } | null)?.[method]?.();
  }

  /** EOF: the helper exits, and its fork server with it (PR_SET_PDEATHSIG); resolves once it is gone. */
  async close(): Promise<void> {
    this.client.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.exited, new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    if (this.child.exitCode === null && this.child.signalCode === null && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await this.exited;
    }
  }
}
