/**
 * Warm sandbox pools on every backend: reset takes a started sandbox whose fork server is ready, the
 * pool refills, closing drains it, and a SIGKILLed owner leaves nothing `gc` cannot reclaim.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvConfigError, TerminalNotStartedError, type Terminal } from '@debug-gym/core';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { DockerTerminal } from '../src/docker-terminal.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { SandboxPool } from '../src/sandbox-pool.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';

const here = dirname(fileURLToPath(import.meta.url));
const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
const bubblewrap = await checkBubblewrap();
const docker = await dockerTestStatus();

interface Backend {
  name: 'local' | 'bubblewrap' | 'docker';
  create: () => Terminal;
}
const backends: Backend[] = [{ name: 'local', create: () => new LocalTerminal({ python }) }];
if (requireOrSkip('bubblewrap', bubblewrap.available, bubblewrap.reason)) backends.push({ name: 'bubblewrap', create: () => new BubblewrapTerminal({ python }) });
if (requireOrSkip('docker', docker.available, docker.reason)) backends.push({ name: 'docker', create: () => new DockerTerminal({ image: TEST_IMAGE, python: 'python3' }) });

const require = createRequire(import.meta.url);
const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');

it('refuses a size that is not a whole number, and a background delay that is not a duration', async () => {
  await expect(SandboxPool.create({ size: -1, create: () => new LocalTerminal({ python }) })).rejects.toBeInstanceOf(EnvConfigError);
  await expect(SandboxPool.create({ backgroundDelayMs: -5, create: () => new LocalTerminal({ python }) })).rejects.toThrow(/backgroundDelayMs .* ≥ 0, got -5/);
});

describe.each(backends)('a sandbox pool on $name', ({ name, create }) => {
  const pools: SandboxPool[] = [];
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.close()));
  });

  it('hands each start() a started sandbox with a ready fork server, refills, and drains on close', async () => {
    const made: Terminal[] = [];
    const pool = await SandboxPool.create({ size: 2, create: () => made[made.push(create()) - 1] as Terminal });
    pools.push(pool);
    const terminal = pool.terminal();
    expect(terminal.kind).toBe(name);
    expect(() => terminal.workdir).toThrow(TerminalNotStartedError);
    await terminal.start();
    const first = terminal.workdir;
    const forked = await terminal.run(`${terminal.python} -c 'print(6*7)'`, { python: { args: ['-c', 'print(6*7)'], uses: [] } });
    expect(forked).toMatchObject({ output: '42\n', launch: { via: 'fork-server' } });
    expect((await terminal.startForkServer()).ready).toBe(true);
    await terminal.writeFile('mine.txt', 'x');
    await terminal.start();
    // A fresh sandbox: nothing of the previous one.
    expect(await terminal.stat('mine.txt')).toBeNull();
    if (name === 'local') expect(terminal.workdir).not.toBe(first);
    // settled(): the sandbox the second start() replaced is closed, and both pooled ones are started.
    await terminal.settled();
    expect(pool.ready).toBe(2);
    expect(made.length).toBe(4);
    expect(made.map((term) => term.started)).toEqual([false, true, true, true]);
    await terminal.close();
    await pool.close();
    expect(pool.ready).toBe(0);
    expect(made.every((term) => !term.started)).toBe(true);
  });

  it('leaves the refill and the replaced sandbox\'s close for later (backgroundDelayMs), and does them at once on settled() or close()', async () => {
    const made: Terminal[] = [];
    const pool = await SandboxPool.create({ size: 1, backgroundDelayMs: 60_000, create: () => made[made.push(create()) - 1] as Terminal });
    pools.push(pool);
    await pool.filled();
    const terminal = pool.terminal();
    await terminal.start();
    await terminal.start();
    // The pool was empty (its refill waits): the second start launched one itself; the first sandbox is not closed yet.
    expect(made.map((term) => term.started)).toEqual([true, true]);
    expect(pool.ready).toBe(0);
    await terminal.settled();
    expect(made.map((term) => term.started)).toEqual([false, true, true]);
    expect(pool.ready).toBe(1);
    await terminal.start();
    await terminal.close();
    await pool.close();
    // close() closed the replaced sandbox at once, and the refill it cut short started nothing.
    expect(made.length).toBe(3);
    expect(made.every((term) => !term.started)).toBe(true);
  });

  // Containers outlive their owner unless their helper or gc stops them; a pooled jail is an ordinary
  // jail (--die-with-parent, its lease: bubblewrap.test.ts), a local sandbox an ordinary lease (leases.test.ts).
  if (name === 'docker') it('leaves nothing gc cannot reclaim when its owner is SIGKILLed', async () => {
    const child = spawn(process.execPath, [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'pool-owner.ts'), name], {
      env: { ...process.env, DEBUG_GYM_DOCKER_IMAGE: TEST_IMAGE },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const ids = await new Promise<string[]>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /SANDBOXES (.+)\n/.exec(out);
        if (match) resolve((match[1] as string).split(' '));
      });
      child.on('exit', (code) => reject(new Error(`the owner exited early (${code}): ${out}`)));
    });
    expect(ids).toHaveLength(4);
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    const engine = new Docker();
    const gone = async (): Promise<number> => (await Promise.all(ids.map((id) => engine.getContainer(id).inspect().then(() => 0, () => 1)))).reduce((a: number, b) => a + b, 0);
    // The helpers see their stdin close and stop their containers; gc removes any straggler.
    await expect.poll(gone, { timeout: 20_000 }).toBe(4);
  });
});
