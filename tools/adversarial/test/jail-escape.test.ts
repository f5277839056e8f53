/**
 * Escapes from the sandbox's file system and leftovers on the host (issue #11): a symlink raced in
 * between a path check and its use, a write through a dangling symlink, tmpfs and memory bombs, and
 * the owner SIGKILLed mid-episode. The agent runs arbitrary code as the sandbox user.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunResult, type Terminal, type TerminalSession, UnrecoverableTerminalError } from '@debug-gym/core';
import { BubblewrapTerminal, gc } from '@debug-gym/terminal';
import { availableBackends, testPython } from '@debug-gym/test-utils';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';

const here = dirname(fileURLToPath(import.meta.url));
const backends = await availableBackends();
const SANDBOXES = backends.filter((backend) => backend.name === 'bubblewrap' || backend.name === 'docker');
/** Docker's own limits are attacked in docker-limits.test.ts. */
const BUBBLEWRAP = backends.filter((backend) => backend.name === 'bubblewrap');
const MiB = 1024 * 1024;

/** Swaps `d` (a directory) and `link` (a symlink) with renameat2(RENAME_EXCHANGE), as fast as it can. */
const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1])
print("swapping", flush=True)
while True:
    for a, b in (("d", "link"), ("r", "rlink")):
        libc.renameat2(-100, a.encode(), -100, b.encode(), 2)
`;

/** Holds one touched GiB for a while: four of them at once need 4 GiB. */
const SPREAD_BOMB = `
import time
held = bytearray(1 << 30)
for i in range(0, len(held), 4096):
    held[i] = 1
print("full", flush=True)
time.sleep(10)
`;

/** Pids whose command line contains `needle` (this process excluded). */
function processesMatching(needle: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(needle)) pids.push(pid);
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

async function processesLeft(needle: string): Promise<number[]> {
  // SIGKILLed processes vanish asynchronously: give them a moment, never a verdict on load.
  for (let i = 0; i < 200 && processesMatching(needle).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return processesMatching(needle);
}

/** Every entry under `dir` with a file's content, to compare before and after. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = entry.isFile() ? await readFile(path, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>';
  }
  return files;
}

describe.each(SANDBOXES)('file system escapes on $name', (backend) => {
  const terminal: Terminal = backend.create();
  const secret = `host-secret-${randomBytes(8).toString('hex')}`;
  let host: string;
  let secretDir: string;
  let repo: string;

  beforeAll(async () => {
    host = await mkdtemp(join(tmpdir(), 'jail-escape-'));
    secretDir = join(host, 'secret');
    repo = join(host, 'repo');
    await mkdir(secretDir, { mode: 0o700 });
    await writeFile(join(secretDir, 'secret.txt'), secret, { mode: 0o600 });
    await writeFile(join(secretDir, `host-only-${secret}`), secret, { mode: 0o600 });
    await mkdir(repo);
    await writeFile(join(repo, 'module.py'), 'VALUE = 1\n');
    await chmod(host, 0o755);
  });

  afterAll(async () => {
    await terminal.close();
    await rm(host, { recursive: true, force: true });
  });

  attack('racing symlink (renameat2 RENAME_EXCHANGE) under readFile/readDir/writeFile', backend.name, async () => {
    await terminal.start();
    await terminal.copyIn(repo);
    await terminal.run(
      `mkdir -p race/d race/r && echo benign > race/d/secret.txt && cp module.py race/r/module.py && ` +
        `ln -s ${secretDir} race/link && ln -s ${repo} race/rlink`,
    );
    await terminal.writeFile('swapper.py', SWAPPER);
    const before = { secrets: await snapshot(secretDir), repo: await snapshot(repo) };
    // A session, like a thread started from pdb: it outlives every command.
    const swapper: TerminalSession = await terminal.openSession('python3 swapper.py race', { prompt: 'swapping\n' });
    try {
      expect((await swapper.read({ timeoutMs: 30_000 })).output).toContain('swapping');
      for (let i = 0; i < 200; i++) {
        const read = await terminal.readFile('race/d/secret.txt').then((bytes) => Buffer.from(bytes).toString(), () => '');
        expect(read).not.toContain(secret);
        const names = await terminal.readDir('race/d').then((entries) => entries.map((entry) => entry.name), () => []);
        expect(names.join(' ')).not.toContain('host-only');
        await terminal.writeFile(`race/d/new-${i}.txt`, 'planted').catch(() => undefined);
        await terminal.writeFile('race/d/secret.txt', 'overwritten').catch(() => undefined);
        await terminal.writeFile('race/r/module.py', 'VALUE = "pwned"\n').catch(() => undefined);
      }
    } finally {
      await swapper.close();
    }
    expect(await snapshot(secretDir)).toEqual(before.secrets);
    expect(await snapshot(repo)).toEqual(before.repo);
  });

  attack('write through a dangling symlink (file or directory) leading out of the working copy', backend.name, async () => {
    await terminal.start();
    const outside = `/tmp/dangling-${randomBytes(6).toString('hex')}`;
    await terminal.run(`ln -s ${outside}.txt flink && ln -s ${outside} dlink`);
    await expect(terminal.writeFile('flink', 'escaped')).rejects.toThrow();
    await expect(terminal.writeFile('dlink/new.txt', 'escaped')).rejects.toThrow();
    await expect(terminal.writeFile('dlink/sub/new.txt', 'escaped')).rejects.toThrow();
    const inside = await terminal.run(`ls -d ${outside}* 2>/dev/null || echo nothing`);
    expect(inside.output).toBe('nothing\n');
    expect(existsSync(`${outside}.txt`) || existsSync(outside)).toBe(false);
  });
});

// Docker on main: NOT HELD (commands run as the helper's user, root, so they can write to its
// stdout); register it there once commands run as another user.
describe.each(SANDBOXES)('helper protocol on $name', (backend) => {
  const terminal: Terminal = backend.create();
  afterAll(() => terminal.close());

  attack('forged helper responses written to /proc/<helper>/fd/1', backend.name, async () => {
    await terminal.start();
    // "FORGED" as a run result for every request id the next calls could use.
    const forge = await terminal.run(
      'for pid in $(pgrep -f "e[x]ec.compile"); do echo "helper $pid"; ' +
        'for id in $(seq 1 3000); do printf \'{"id":%d,"ok":true,"exit":0,"out":"Rk9SR0VECg==","dropped":0,"timedOut":false,"data":"Rk9SR0VECg=="}\\n\' "$id"; done ' +
        '> /proc/$pid/fd/1; done 2>&1; true',
    );
    expect(forge.output).toMatch(/^helper \d+$/m);
    expect(await terminal.run('echo real')).toMatchObject({ exitCode: 0, output: 'real\n' });
    await terminal.writeFile('real.txt', 'real\n');
    expect(Buffer.from(await terminal.readFile('real.txt')).toString()).toBe('real\n');
  });
});

describe.each(BUBBLEWRAP)('resource bombs on $name', (backend) => {
  const terminal: Terminal = backend.create();
  afterAll(() => terminal.close());

  for (const [where, cap] of [['/tmp', 512], ['/dev/shm', 64]] as const) {
    attack(`${where} fill-up (${cap + 256} MiB) stops at its cap, in memory and not on the host's disk`, backend.name, async () => {
      await terminal.start();
      const fill = await terminal.run(
        `dd if=/dev/zero of=${where}/fill bs=1M count=${cap + 256} 2>&1; echo "size $(stat -c %s ${where}/fill)"; df -k --output=fstype,size ${where} | tail -1`,
        { timeoutMs: 120_000 },
      );
      expect(fill.output).toMatch(/No space left on device/);
      expect(Number(/size (\d+)/.exec(fill.output)?.[1])).toBeLessThanOrEqual(cap * MiB);
      expect(fill.output).toMatch(new RegExp(`tmpfs\\s+${cap * 1024}\\n`));
      await terminal.run(`rm -f ${where}/fill`);
      expect((await terminal.run('echo next')).output).toBe('next\n');
    });
  }

  attack('working copy fill-up (1.25 GiB) stops at its cap', backend.name, async () => {
    await terminal.start();
    const fill = await terminal.run('dd if=/dev/zero of=fill bs=1M count=1280 2>&1; echo "size $(stat -c %s fill)"; rm -f fill', { timeoutMs: 120_000 });
    expect(fill.output).toMatch(/No space left on device/);
    expect(Number(/size (\d+)/.exec(fill.output)?.[1])).toBeLessThanOrEqual(1024 * MiB);
  });

  attack('memory bomb (4 GiB, touched) is stopped and the sandbox stays usable', backend.name, async () => {
    await terminal.start();
    const bomb = await terminal.run(
      'python3 -c "\nheld = []\nfor step in range(32):\n    held.append(bytearray(128 << 20))\n    print((step + 1) * 128, flush=True)\n"',
      { timeoutMs: 120_000 },
    );
    expect(bomb.output).not.toMatch(/^4096$/m);
    expect(bomb.exitCode).not.toBe(0);
    expect((await terminal.run('echo next')).output).toBe('next\n');
  });
  attack('memory bomb spread over 4 processes (4 × 1 GiB, touched) is stopped by the total cap of the jail', backend.name, async () => {
    await terminal.start();
    await terminal.writeFile('bomb.py', SPREAD_BOMB);
    const bomb = await terminal.run('for i in 1 2 3 4; do python3 bomb.py & done; wait; echo done', { timeoutMs: 120_000 });
    // Without a total cap all four hold their GiB at once.
    expect(bomb.output.match(/^full$/gm)?.length ?? 0).toBeLessThan(4);
    expect(Number(/oom_kill (\d+)/.exec(cgroupFile(terminal as BubblewrapTerminal, 'memory.oom_control', 'memory.events') ?? '')?.[1])).toBeGreaterThan(0);
    const next = await terminal.run('echo next').catch((error: unknown) => error);
    // The next step works, or the episode ends with a typed error.
    if (next instanceof Error) expect(UnrecoverableTerminalError.isInstance(next)).toBe(true);
    else expect((next as RunResult).output).toBe('next\n');
  });
});

/** The content of the first of `files` found in the jail's cgroup directories (v1 and v2 names differ). */
function cgroupFile(terminal: BubblewrapTerminal, ...files: string[]): string | undefined {
  for (const file of files) {
    const dir = terminal.cgroupPaths.find((path) => existsSync(join(path, file)));
    if (dir) return readFileSync(join(dir, file), 'utf8');
  }
  return undefined;
}

/** Forks children that sleep until it kills them, until a fork is refused; then ends them all. */
const FORK_BOMB = `
import os, signal, sys, time
children = []
for _ in range(int(sys.argv[1])):
    try:
        pid = os.fork()
    except OSError as error:
        print("fork refused:", error.strerror, flush=True)
        break
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    children.append(pid)
print("spawned", len(children), flush=True)
for pid in children:
    os.kill(pid, signal.SIGKILL)
for pid in children:
    os.waitpid(pid, 0)
`;

// The cgroup layout tried here is v1 (this machine's); v2 was not exercised on a real v2 host.
describe.each(BUBBLEWRAP)('cgroup caps on $name', () => {
  attack('fork bomb (5000 processes) is capped by the pids cgroup and the next step works', 'bubblewrap', async () => {
    const terminal = new BubblewrapTerminal({ python: testPython });
    await terminal.start();
    try {
      await terminal.writeFile('forks.py', FORK_BOMB);
      const bomb = await terminal.run('python3 forks.py 5000', { timeoutMs: 120_000 });
      expect(bomb.output).toContain('fork refused');
      expect(Number(/spawned (\d+)/.exec(bomb.output)?.[1])).toBeLessThan(1024);
      expect(cgroupFile(terminal, 'pids.max')?.trim()).toBe('1024');
      expect(Number(/max (\d+)/.exec(cgroupFile(terminal, 'pids.events') ?? '')?.[1])).toBeGreaterThan(0);
      expect((await terminal.run('echo next')).output).toBe('next\n');
    } finally {
      await terminal.close();
    }
  });

  attack('CPU burner is throttled to the CPU quota of the jail', 'bubblewrap', async () => {
    // A tenth of a core, so a fixed amount of work always outruns the quota, however loaded the host.
    const terminal = new BubblewrapTerminal({ python: testPython, cpus: 0.1 });
    await terminal.start();
    try {
      const burn = await terminal.run('python3 -c "for _ in range(10_000_000): pass" && echo burnt', { timeoutMs: 300_000 });
      expect(burn.output).toBe('burnt\n');
      const quota = cgroupFile(terminal, 'cpu.max')?.trim() ?? `${cgroupFile(terminal, 'cpu.cfs_quota_us')?.trim()} ${cgroupFile(terminal, 'cpu.cfs_period_us')?.trim()}`;
      expect(quota).toBe('10000 100000');
      expect(Number(/nr_throttled (\d+)/.exec(cgroupFile(terminal, 'cpu.stat') ?? '')?.[1])).toBeGreaterThan(0);
    } finally {
      await terminal.close();
    }
  });
});

describe.each(SANDBOXES)('owner killed on $name', (backend) => {
  attack('SIGKILL of the owner mid-episode leaves no process and no file', backend.name, async () => {
    const require = createRequire(import.meta.url);
    const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
    const ownerTmp = await mkdtemp(join(tmpdir(), 'jail-owner-'));
    const leaseDir = join(ownerTmp, 'debug-gym-leases-test');
    const seconds = `8${randomInt(100_000, 999_999)}`;
    let child: ChildProcess | undefined;
    try {
      const owner = spawn(
        process.execPath,
        [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'jail-owner.ts'), backend.name, seconds],
        { env: { ...process.env, TMPDIR: ownerTmp, DEBUG_GYM_LEASE_DIR: leaseDir }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      child = owner;
      const exited = new Promise((resolve) => owner.once('exit', resolve));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        owner.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('READY')) resolve();
        });
        owner.once('exit', (code) => reject(new Error(`the owner exited early (${String(code)}): ${out}`)));
      });
      // READY comes once the shell printed, maybe before its exec: a loaded machine can hold it there.
      await expect.poll(() => processesMatching(`sleep ${seconds}`).length, { timeout: 30_000 }).toBeGreaterThan(0);
      owner.kill('SIGKILL');
      await exited;
      // Leases (debug-gym-leases-*) name what a dead owner held, for gc: they are not sandbox files.
      expect((await readdir(ownerTmp)).filter((name) => !name.startsWith('debug-gym-leases'))).toEqual([]);
      // Docker removes the container once its helper sees EOF; a jail dies with its parent.
      for (let i = 0; i < 20 && processesMatching(`sleep ${seconds}`).length > 0; i++) await processesLeft(`sleep ${seconds}`);
      expect(processesMatching(`sleep ${seconds}`)).toEqual([]);
    } finally {
      child?.kill('SIGKILL'); // also when an assertion failed before the kill under test
      await gc({ leaseDir, containers: false }); // what only gc reclaims (the jail's cgroup), before its lease goes
      await rm(ownerTmp, { recursive: true, force: true });
    }
  }, 120_000);
});
