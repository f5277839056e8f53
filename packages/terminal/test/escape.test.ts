/**
 * What each host backend stops a hostile command from doing, and — for the local backend — what it
 * cannot stop (those tests are named `local: cannot prevent ...` and assert that the escape works,
 * so the gap stays documented). Fork bombs are simulated with a bounded spawner: at most 5000
 * sleeping children that exit by themselves after a minute, so a failure cannot take the machine down.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Terminal } from '@debug-gym/core';
import { PathNotFoundError, WorkspaceError } from '@debug-gym/core';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap, isRoot } from '../src/bubblewrap-probe.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { pythonInstall } from '../src/python-paths.js';
import { processesLeft, processesStarted } from './processes.js';
import { requireOrSkip } from './sandbox-availability.js';

const SPAWNER = `
import os, sys, time
limit, child_life, parent_life = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
spawned = 0
for _ in range(limit):
    try:
        pid = os.fork()
    except OSError as error:
        print("fork refused:", error.strerror, flush=True)
        break
    if pid == 0:
        time.sleep(child_life)
        os._exit(0)
    spawned += 1
print("spawned", spawned, flush=True)
time.sleep(parent_life)
`;

const CONNECT = `
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=3).close()
    print("connected")
except OSError as error:
    print("blocked:", error)
`;

const id = randomBytes(4).toString('hex');
const canary = join(homedir(), `.debug-gym-canary-${id}`);
const CANARY_TEXT = `canary ${id}`;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  await writeFile(canary, CANARY_TEXT, { mode: 0o600 });
  server = createServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  await rm(canary, { force: true });
  await new Promise((resolve) => server.close(resolve));
});

async function spawnerScript(term: Terminal): Promise<string> {
  const name = `spawner_${randomBytes(4).toString('hex')}.py`;
  await term.writeFile(name, SPAWNER);
  return name;
}

function spawnedCount(output: string): number {
  const match = /spawned (\d+)/.exec(output);
  return match ? Number(match[1]) : -1;
}

describe('local terminal: no sandbox (documents the gaps)', () => {
  let term: LocalTerminal;

  beforeAll(async () => {
    term = new LocalTerminal({ defaultTimeoutMs: 30_000 });
    await term.start();
  });

  afterAll(async () => {
    await term.close();
  });

  it('local: cannot prevent writing outside the workdir', async () => {
    const outside = join(dirname(term.workdir), `debug-gym-escape-${id}`);
    try {
      const result = await term.run(`echo escaped > "${outside}"`);
      expect(result.exitCode).toBe(0);
      expect(readFileSync(outside, 'utf8')).toBe('escaped\n');
    } finally {
      await rm(outside, { force: true });
    }
  });

  it("local: cannot prevent reading the user's home", async () => {
    const result = await term.run(`cat "${canary}"`);
    expect(result.output).toBe(CANARY_TEXT);
  });

  it('local: cannot prevent network access', async () => {
    const before = connections;
    const result = await term.run(`${term.python} -c '${CONNECT}' ${port}`);
    expect(result.output).toBe('connected\n');
    expect(connections).toBe(before + 1);
  });

  it('local: has no process limit, but kills a (small, bounded) fork burst at the timeout', async () => {
    const script = await spawnerScript(term);
    const result = await term.run(`${term.python} ${script} 20 60 1000`, { timeoutMs: 1_500 });
    expect(result.timedOut).toBe(true);
    expect(spawnedCount(result.output)).toBe(20);
    expect(await processesLeft(script)).toEqual([]);
  });

  it('kills background processes, even ones that left the process group, at close()', async () => {
    const own = new LocalTerminal();
    await own.start();
    const seconds = `8${id.replace(/\D/g, '').padEnd(5, '1').slice(0, 5)}`;
    try {
      await own.run(`nohup sleep ${seconds} >/dev/null 2>&1 & setsid sleep ${seconds}1 >/dev/null 2>&1 &`);
      expect(await processesStarted(`sleep ${seconds}`)).toHaveLength(1);
      expect(await processesStarted(`sleep ${seconds}1`)).toHaveLength(1);
    } finally {
      await own.close();
    }
    expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
  });
});

const bwrap = await checkBubblewrap();

describe.runIf(requireOrSkip('bubblewrap', bwrap.available, bwrap.reason))('bubblewrap terminal: escape attempts', () => {
  let term: BubblewrapTerminal;
  const hostFiles: string[] = [];

  beforeAll(async () => {
    term = new BubblewrapTerminal({ defaultTimeoutMs: 30_000 });
    await term.start();
  });

  afterEach(async () => {
    await Promise.all(hostFiles.splice(0).map((file) => rm(file, { force: true })));
  });

  afterAll(async () => {
    await term.close();
  });

  it('cannot write to system directories', async () => {
    for (const target of ['/etc', '/usr', '/usr/local/bin', '/opt']) {
      const file = `${target}/debug-gym-escape-${id}`;
      hostFiles.push(file);
      const result = await term.run(`echo escaped > ${file}`);
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toMatch(/Read-only file system|Permission denied/);
      expect(existsSync(file)).toBe(false);
    }
  });

  it("cannot write outside its tmpfs mounts, and nothing it writes reaches the host", async () => {
    const outside = join(dirname(term.workdir), `debug-gym-escape-${id}`);
    hostFiles.push(outside);
    const result = await term.run(`echo escaped > "$(dirname "$PWD")/debug-gym-escape-${id}"`);
    expect(result.output).toMatch(/Permission denied|Read-only file system/); // the jail's root is not writable
    await expect(term.writeFile(`../debug-gym-escape-${id}`, 'via the file API')).rejects.toBeInstanceOf(WorkspaceError);
    await term.writeFile(`/tmp/debug-gym-escape-${id}`, 'in the private /tmp');
    hostFiles.push(`/tmp/debug-gym-escape-${id}`);
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(`/tmp/debug-gym-escape-${id}`)).toBe(false);
  });

  it('refuses writes outside the writable parts of the sandbox, inside the jail', async () => {
    hostFiles.push(`/etc/debug-gym-escape-${id}`);
    await expect(term.writeFile(`/etc/debug-gym-escape-${id}`, 'x')).rejects.toBeInstanceOf(WorkspaceError);
    await expect(term.remove('/etc/hostname')).rejects.toBeInstanceOf(WorkspaceError);
    expect(existsSync(`/etc/debug-gym-escape-${id}`)).toBe(false);
    expect(existsSync('/etc/hostname')).toBe(true);
  });

  /**
   * Of the user's home the jail shows nothing, except — read-only — the directories of the configured
   * interpreter when it lives there (a pyenv root, a virtualenv): `shown` are their entries in the home.
   */
  async function expectHomeHidden(jail: BubblewrapTerminal, shown: string[]): Promise<void> {
    const direct = await jail.run(`cat "${canary}"`);
    expect(direct.exitCode).not.toBe(0);
    expect(direct.output).not.toContain(CANARY_TEXT);
    const listing = await jail.run(`ls -A "${homedir()}"`);
    if (shown.length === 0) {
      expect(listing.exitCode).not.toBe(0);
      expect(listing.output).toContain('No such file or directory');
    } else {
      expect(listing.exitCode).toBe(0);
      expect(listing.output.split('\n').filter(Boolean).sort()).toEqual(shown);
      for (const entry of shown) {
        const write = await jail.run(`touch "${join(homedir(), entry)}/debug-gym-escape-${id}"`);
        expect(write.output).toMatch(/Read-only file system|Permission denied/);
      }
    }
    await expect(jail.readFile(canary)).rejects.toBeInstanceOf(PathNotFoundError);
    await jail.run(`ln -s "${canary}" leak && ln -s "${homedir()}" home`);
    await expect(jail.readFile('leak')).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(jail.readFile(`home/.debug-gym-canary-${id}`)).rejects.toBeInstanceOf(PathNotFoundError);
    if (shown.length === 0) await expect(jail.readDir('home')).rejects.toBeInstanceOf(PathNotFoundError);
    else expect((await jail.readDir('home')).map((entry) => entry.name).sort()).toEqual(shown);
    await expect(jail.realPath('leak')).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(jail.writeFile('leak', 'overwritten')).rejects.toBeInstanceOf(PathNotFoundError);
    // A small source: when the interpreter's directories make the home exist in the jail, the copy is only
    // refused at its first write (a copy of the whole home would take minutes before that).
    const source = await mkdtemp(join(tmpdir(), 'dg-escape-copy-'));
    try {
      await writeFile(join(source, `debug-gym-copied-${id}`), 'copied');
      await expect(jail.copyIn(source, 'home')).rejects.toBeInstanceOf(WorkspaceError);
    } finally {
      await rm(source, { recursive: true, force: true });
    }
    expect(existsSync(join(homedir(), `debug-gym-copied-${id}`))).toBe(false);
    expect(readFileSync(canary, 'utf8')).toBe(CANARY_TEXT);
  }

  it("cannot read the user's home, neither directly nor through a symlink handed to the file methods", async () => {
    // The configured interpreter (DEBUG_GYM_PYTHON, else python3 on PATH) may live in the home (pyenv):
    // then exactly its directories are there, read-only.
    const underHome = (await pythonInstall(term.python)).paths.filter((path) => path.startsWith(`${homedir()}/`));
    const shown = [...new Set(underHome.map((path) => path.slice(homedir().length + 1).split('/')[0] as string))].sort();
    await expectHomeHidden(term, shown);
  });

  it.runIf(existsSync('/usr/bin/python3'))('shows of the home only the virtualenv its interpreter lives in, read-only, and runs it', async () => {
    const name = `.debug-gym-venv-${id}`;
    const venv = join(homedir(), name);
    execFileSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv]);
    const jail = new BubblewrapTerminal({ python: join(venv, 'bin', 'python'), defaultTimeoutMs: 30_000 });
    try {
      await jail.start();
      expect((await jail.run('python -c "import sys; print(sys.prefix)"')).output.trim()).toBe(venv);
      await expectHomeHidden(jail, [name]);
    } finally {
      await jail.close();
      await rm(venv, { recursive: true, force: true });
    }
  });

  it('follows symlinks the way the sandbox sees them', async () => {
    await term.run('ln -s /etc/hostname host-name && ln -s /tmp scratch && echo in-scratch > /tmp/note.txt');
    expect(Buffer.from(await term.readFile('host-name')).toString()).toBe(readFileSync('/etc/hostname', 'utf8'));
    await expect(term.writeFile('host-name', 'x')).rejects.toBeInstanceOf(WorkspaceError); // read-only in the jail
    expect(Buffer.from(await term.readFile('scratch/note.txt')).toString()).toBe('in-scratch\n');
    expect(await term.realPath('scratch/note.txt')).toBe('/tmp/note.txt');
  });

  it('cannot reach the network, not even the host loopback', async () => {
    const before = connections;
    const result = await term.run(`${term.python} -c '${CONNECT}' ${port}`);
    expect(result.output).toMatch(/^blocked:/);
    expect(connections).toBe(before);
  });

  it('caps a fork bomb with the process limit, and nothing survives close()', async () => {
    const own = new BubblewrapTerminal();
    await own.start();
    let script = '';
    try {
      script = await spawnerScript(own);
      const result = await own.run(`${own.python} ${script} 5000 60 0`);
      const spawned = spawnedCount(result.output);
      expect(result.output).toContain('fork refused');
      expect(spawned).toBeGreaterThan(0);
      expect(spawned).toBeLessThan(1024);
    } finally {
      await own.close();
    }
    expect(await processesLeft(script)).toEqual([]);
  });

  it('kills a capped fork bomb at the timeout', async () => {
    const small = new BubblewrapTerminal({ maxProcesses: 64 });
    await small.start();
    try {
      const script = await spawnerScript(small);
      const result = await small.run(`${small.python} ${script} 5000 60 1000`, { timeoutMs: 3_000 });
      expect(result.timedOut).toBe(true);
      expect(spawnedCount(result.output)).toBeLessThan(64);
      expect(await processesLeft(script)).toEqual([]);
      expect((await small.run('echo alive')).output).toBe('alive\n');
    } finally {
      await small.close();
    }
  });

  it('ends every background process, also one that left its session, at close()', async () => {
    const own = new BubblewrapTerminal();
    await own.start();
    const seconds = `9${id.replace(/\D/g, '').padEnd(5, '2').slice(0, 5)}`;
    try {
      await own.run(`nohup sleep ${seconds} >/dev/null 2>&1 & setsid sleep ${seconds}1 >/dev/null 2>&1 &`);
      const session = await own.openSession(`nohup sleep ${seconds}2 & sleep ${seconds}3`, { prompt: '$ ' });
      expect(await processesStarted(`sleep ${seconds}2`)).toHaveLength(1);
      expect(await processesStarted(`sleep ${seconds}3`)).toHaveLength(1);
      expect(session.closed).toBe(false);
    } finally {
      await own.close();
    }
    expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
  });

  it('cannot see or signal host processes', async () => {
    const result = await term.run(`ps -e -o pid= | wc -l; kill -0 ${process.pid} 2>/dev/null && echo signalled || echo refused`);
    const [count, verdict] = result.output.trim().split('\n');
    expect(Number(count)).toBeLessThan(10);
    expect(verdict).toBe('refused');
  });

  it.runIf(isRoot())('drops root: an unprivileged uid without capabilities', async () => {
    const result = await term.run('id -u; grep CapEff /proc/self/status; cat /etc/shadow >/dev/null 2>&1 && echo read-shadow || echo no-shadow');
    const [uid, caps, shadow] = result.output.trim().split('\n');
    expect(Number(uid)).toBeGreaterThan(0);
    expect(caps).toMatch(/CapEff:\s+0+$/);
    expect(shadow).toBe('no-shadow');
  });

  it.runIf(existsSync('/var/run/docker.sock'))('cannot reach the Docker socket', async () => {
    const result = await term.run('test -e /var/run/docker.sock && echo visible || echo hidden');
    expect(result.output).toBe('hidden\n');
  });
});
