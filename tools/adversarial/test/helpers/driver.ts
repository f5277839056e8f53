import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'packages', 'cli', 'dist', 'bin.js');

/**
 * Build the CLI and what it imports (turbo: a no-op when nothing changed). The driver must be the
 * real `dist/bin.js`: a dev runner (vite-node) installs its own SIGTERM handler and exits at once.
 */
export function buildCli(): void {
  execFileSync('pnpm', ['exec', 'turbo', 'run', 'build', '--filter', '@debug-gym/cli...', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
}

/**
 * The built `debug-gym serve` as a child process, speaking JSON-RPC lines; replies are matched to
 * requests by id.
 */
export class Driver {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  private nextId = 1;
  private readonly exited: Promise<number | NodeJS.Signals>;
  stderr = '';

  constructor(env: Record<string, string>) {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    delete childEnv.XDG_RUNTIME_DIR;
    this.child = spawn(process.execPath, [bin, 'serve'], {
      cwd: root,
      env: childEnv,
      stdio: 'pipe',
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const reply = JSON.parse(line) as Record<string, unknown>;
      const id = reply.id as number;
      this.waiting.get(id)?.(reply);
      this.waiting.delete(id);
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(signal ?? (code as number))));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  call(method: string, params?: unknown): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, resolve);
      void this.exited.then((status) => reject(new Error(`serve exited (${status}) before answering ${method}:\n${this.stderr}`)));
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
    });
  }

  /** Signal the driver; resolves with its exit code or signal, or 'timeout' when it outlives `withinMs`. */
  async kill(signal: NodeJS.Signals = 'SIGKILL', withinMs = 30_000): Promise<number | NodeJS.Signals | 'timeout'> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), withinMs)));
    const status = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (status === 'timeout') this.child.kill('SIGKILL');
    return status;
  }
}

/** Pids of host processes whose environment carries `DG_DRIVER_KILL=<token>` (containers' processes included). */
export async function markedProcesses(token: string): Promise<number[]> {
  const marker = Buffer.from(`DG_DRIVER_KILL=${token}\0`);
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const [environ, stat] = await Promise.all([readFile(`/proc/${pid}/environ`), readFile(`/proc/${pid}/stat`, 'utf8')]);
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie holds nothing
      if (environ.includes(marker)) pids.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Ids of the Docker containers labelled as created by process `pid` (running or not). */
export function containersOf(pid: number): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`debug-gym.pid=${pid}`] }));
  const socketPath = process.env.DOCKER_HOST?.startsWith('unix://') ? process.env.DOCKER_HOST.slice('unix://'.length) : '/var/run/docker.sock';
  return new Promise((resolve, reject) => {
    request({ socketPath, path: `/containers/json?all=1&filters=${filters}` }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve((JSON.parse(body) as Array<{ Id: string }>).map((container) => container.Id)));
    })
      .on('error', reject)
      .end();
  });
}
