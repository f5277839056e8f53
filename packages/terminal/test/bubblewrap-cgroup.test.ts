/**
 * The bubblewrap jail's cgroup (real cgroups, real bwrap). This machine has cgroup v1 writable, so
 * the v1 layout is what runs here; the v2 code path was not exercised on a real v2 host.
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap, isRoot } from '../src/bubblewrap-probe.js';
import { createJailCgroup, removeCgroup } from '../src/cgroup.js';
import { gc } from '../src/gc.js';
import { readLeases } from '../src/leases.js';
import { processesMatching } from './processes.js';
import { requireOrSkip } from './sandbox-availability.js';

const here = dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;
const status = await checkBubblewrap();
const probe = status.available ? createJailCgroup('debug-gym-0', { memory: MiB * 64, maxProcesses: 8, cpus: 1 }) : undefined;
if (probe) for (const path of probe.paths) await removeCgroup(path);
const cgroups = requireOrSkip('bubblewrap', status.available, status.reason) &&
  requireOrSkip('bubblewrap', probe !== undefined, isRoot() ? 'no writable cgroup hierarchy here' : 'cgroups need root');

/** The value of `file` in whichever of the jail's cgroup directories has it. */
function cgroupValue(term: BubblewrapTerminal, file: string): string | undefined {
  const dir = term.cgroupPaths.find((path) => existsSync(join(path, file)));
  return dir === undefined ? undefined : readFileSync(join(dir, file), 'utf8').trim();
}

/** The jail's limits as the kernel holds them, in one shape for v1 and v2. */
function limitsOf(term: BubblewrapTerminal): { memory?: string; swap?: string; pids?: string; cpu?: string } {
  if (probe?.version === 2) {
    return { memory: cgroupValue(term, 'memory.max'), swap: cgroupValue(term, 'memory.swap.max'), pids: cgroupValue(term, 'pids.max'), cpu: cgroupValue(term, 'cpu.max') };
  }
  const quota = cgroupValue(term, 'cpu.cfs_quota_us');
  return {
    memory: cgroupValue(term, 'memory.limit_in_bytes'),
    swap: cgroupValue(term, 'memory.memsw.limit_in_bytes'),
    pids: cgroupValue(term, 'pids.max'),
    cpu: quota === undefined ? undefined : `${quota} ${cgroupValue(term, 'cpu.cfs_period_us') ?? ''}`,
  };
}

describe.runIf(cgroups)(`bubblewrap jail cgroup (v${probe?.version ?? '?'})`, () => {
  it('starts bwrap inside its own cgroup with the default caps, runs every command there, and removes it at close()', async () => {
    const term = new BubblewrapTerminal();
    const seconds = `6${randomInt(100_000, 999_999)}`;
    await term.start();
    const paths = term.cgroupPaths;
    try {
      expect(paths).toHaveLength(probe?.version === 2 ? 1 : 3);
      for (const path of paths) expect(basename(path)).toMatch(/^debug-gym-[0-9a-f]+$/);
      const limits = limitsOf(term);
      expect(limits.memory).toBe(String(2048 * MiB));
      if (limits.swap !== undefined) expect(limits.swap).toBe(probe?.version === 2 ? '0' : String(2048 * MiB));
      expect(limits.pids).toBe('1024');
      expect(limits.cpu).toBe('100000 100000');
      // The session opens right after the fork: wait for its shell to run before looking for it.
      await (await term.openSession(`printf started; exec sleep ${seconds}`, { prompt: 'started' })).read();
      const [sleeper] = processesMatching(`sleep ${seconds}`);
      expect(sleeper).toBeDefined();
      const membership = readFileSync(`/proc/${String(sleeper)}/cgroup`, 'utf8');
      for (const path of paths) {
        const root = probe?.version === 2 ? '/sys/fs/cgroup' : `/sys/fs/cgroup/${String(path.split('/')[4])}`;
        expect(membership).toContain(`:${path.slice(root.length)}\n`);
        expect(readFileSync(join(path, 'cgroup.procs'), 'utf8').split('\n')).toContain(String(sleeper));
      }
    } finally {
      await term.close();
    }
    for (const path of paths) expect(existsSync(path)).toBe(false);
  });

  it('writes the configured caps, and leaves out the ones set to false', async () => {
    const custom = new BubblewrapTerminal({ memory: '256m', cpus: 0.5, maxProcesses: 64 });
    await custom.start();
    try {
      expect(limitsOf(custom)).toMatchObject({ memory: String(256 * MiB), pids: '64', cpu: '50000 100000' });
      expect((await custom.run('echo inside')).output).toBe('inside\n');
    } finally {
      await custom.close();
    }
    const bare = new BubblewrapTerminal({ memory: false, cpus: false });
    await bare.start();
    try {
      expect(limitsOf(bare)).toMatchObject({ pids: '1024' });
      if (probe?.version === 1) expect(bare.cgroupPaths.map((path) => path.split('/')[4])).toEqual(['pids']);
      else expect(limitsOf(bare).cpu).toBe('max 100000');
    } finally {
      await bare.close();
    }
  });

  it('refuses limits it cannot use, before starting anything', () => {
    expect(() => new BubblewrapTerminal({ memory: 0 })).toThrow(RangeError);
    expect(() => new BubblewrapTerminal({ cpus: -1 })).toThrow(/cpus must be a positive number/);
    expect(() => new BubblewrapTerminal({ maxProcesses: 0 })).toThrow(/maxProcesses/);
  });

  it("reclaims a SIGKILLed owner's cgroups in every hierarchy with gc()", async () => {
    const require = createRequire(import.meta.url);
    const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
    const ownerTmp = await mkdtemp(join(tmpdir(), 'bwrap-cgroup-owner-'));
    const leaseDir = join(ownerTmp, 'leases');
    const child = spawn(
      process.execPath,
      [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'bubblewrap-owner.ts'), `5${randomInt(100_000, 999_999)}`],
      { env: { ...process.env, TMPDIR: ownerTmp, DEBUG_GYM_LEASE_DIR: leaseDir }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('READY')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`owner exited early (${String(code)}): ${out}`)));
      });
      const leased = readLeases(leaseDir).flatMap((lease) => lease.record.cgroups);
      expect(leased).toHaveLength(probe?.version === 2 ? 1 : 3);
      for (const path of leased) expect(existsSync(path)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      const report = await gc({ leaseDir, containers: false });
      expect(report.reclaimed.filter((item) => item.kind === 'cgroup').map((item) => item.what).sort()).toEqual([...leased].sort());
      for (const path of leased) expect(existsSync(path)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await rm(ownerTmp, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * Where each layout puts the group and which files it writes, on a fake cgroup tree (plain files: no
 * kernel semantics). The only check of the v2 layout here: this machine has no cgroup v2 controllers.
 */
describe('jail cgroup layout on a fake tree', () => {
  let root: string;
  const limits = { memory: 512 * MiB, maxProcesses: 100, cpus: 1.5 };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'fake-cgroup-'));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function fakeDir(path: string, files: Record<string, string>): Promise<void> {
    await mkdir(join(root, path), { recursive: true });
    for (const [name, value] of Object.entries(files)) await writeFile(join(root, path, name), value);
  }

  it('v2: a sibling of the owner\'s cgroup when its parent hands the controllers down', async () => {
    await fakeDir('', { 'cgroup.controllers': 'cpuset cpu io memory pids\n' });
    await fakeDir('user.slice/session-1.scope', { 'cgroup.controllers': 'cpu memory pids\n' });
    await writeFile(join(root, 'self'), '0::/user.slice/session-1.scope\n');
    const group = createJailCgroup('debug-gym-ab', limits, { root, self: join(root, 'self') });
    expect(group).toEqual({ version: 2, paths: [join(root, 'user.slice', 'debug-gym-ab')] });
    const dir = join(root, 'user.slice', 'debug-gym-ab');
    expect(await readdir(dir)).toEqual(['cpu.max', 'memory.max', 'pids.max']);
    expect(await readFile(join(dir, 'memory.max'), 'utf8')).toBe(String(512 * MiB));
    expect(await readFile(join(dir, 'pids.max'), 'utf8')).toBe('100');
    expect(await readFile(join(dir, 'cpu.max'), 'utf8')).toBe('150000 100000');
  });

  it('v2 at the root: enables the controllers in cgroup.subtree_control, then a child', async () => {
    await fakeDir('', { 'cgroup.controllers': 'cpu memory pids\n' });
    await writeFile(join(root, 'self'), '0::/\n');
    const group = createJailCgroup('debug-gym-cd', { ...limits, cpus: false }, { root, self: join(root, 'self') });
    expect(group?.paths).toEqual([join(root, 'debug-gym-cd')]);
    expect(await readFile(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');
    expect(await readdir(join(root, 'debug-gym-cd'))).toEqual(['memory.max', 'pids.max']);
  });

  it('v1: a child of the owner\'s cgroup in each hierarchy; no group where none can be made', async () => {
    for (const controller of ['memory', 'pids', 'cpu']) await fakeDir(controller, { 'cgroup.procs': '' });
    await fakeDir('memory/runner/7', { 'memory.memsw.limit_in_bytes': '' });
    await writeFile(join(root, 'self'), '4:memory:/runner/7\n8:pids:/\n1:cpu,cpuacct:/\n0::/\n');
    const group = createJailCgroup('debug-gym-ef', limits, { root, self: join(root, 'self') });
    expect(group).toEqual({ version: 1, paths: ['memory/runner/7', 'pids', 'cpu'].map((path) => join(root, path, 'debug-gym-ef')) });
    expect(await readFile(join(root, 'memory/runner/7/debug-gym-ef/memory.limit_in_bytes'), 'utf8')).toBe(String(512 * MiB));
    expect(await readFile(join(root, 'cpu/debug-gym-ef/cpu.cfs_quota_us'), 'utf8')).toBe('150000');
    expect(createJailCgroup('debug-gym-ef', limits, { root, self: join(root, 'self') })).toBeUndefined(); // exists already
    expect(createJailCgroup('debug-gym-12', limits, { root: join(root, 'none'), self: join(root, 'self') })).toBeUndefined();
    expect(() => createJailCgroup('../escape', limits)).toThrow(RangeError);
  });
});
