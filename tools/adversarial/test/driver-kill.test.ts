import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gc } from '@debug-gym/terminal';
import { availableBackends, testPython, testDockerImage, testdir } from '@debug-gym/test-utils';
import { afterEach, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
import { Driver, containersOf, markedProcesses } from './helpers/driver.js';

const backends = await availableBackends();

/** How long a killed or signalled driver may take to be gone: far below the 600 s step it interrupts. */
const EXIT_LIMIT_MS = 30_000;

const repo = (): string =>
  testdir({
    'app.py': 'def add(a, b):\n    return a - b\n',
    'test_app.py': 'from app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n',
  });

/**
 * The drivers' TMPDIR: private to the test, so other runs' sandboxes on this machine do not count.
 * Not below /tmp, which a bubblewrap sandbox replaces with its own (a nested TMPDIR is unreachable).
 */
function newScratch(): string {
  const dir = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'dg-driver-kill-'));
  chmodSync(dir, 0o755); // a bubblewrap sandbox's own uid must reach its working copy below
  return dir;
}

describe.each(backends)('killing the driver on $name', (backend) => {
  let scratch = '';
  const drivers: Driver[] = [];
  const leaseDir = (): string => join(scratch, 'leases');
  // Not the local backend's python/pip wrappers (`debug-gym-python-<uid>-<hash>`): a cache shared by every run of that interpreter, kept by design.
  const sandboxDirs = (): string[] => readdirSync(scratch).filter((name) => name.startsWith('debug-gym-') && !name.startsWith('debug-gym-python-'));
  afterEach(async () => {
    await Promise.all(drivers.splice(0).map((driver) => driver.kill()));
    await gc({ leaseDir: leaseDir() });
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A `debug-gym serve` in the scratch dir, and the terminal config that marks its sandbox's processes with `token`. */
  function markedDriver(): { driver: Driver; token: string; terminal: Record<string, unknown> } {
    const token = randomBytes(6).toString('hex');
    const driver = new Driver({ TMPDIR: scratch, DEBUG_GYM_LEASE_DIR: leaseDir() });
    drivers.push(driver);
    const terminal = {
      type: backend.name,
      python: backend.name === 'docker' ? 'python3' : testPython,
      env: { DG_DRIVER_KILL: token },
      ...(backend.name === 'docker' ? { image: testDockerImage } : {}),
    };
    return { driver, token, terminal };
  }

  /** A `debug-gym serve` with an episode open: a pdb session and a 600 s bash step still running. */
  async function busyDriver(): Promise<{ driver: Driver; token: string; pending: Promise<Record<string, unknown>> }> {
    const { driver, token, terminal } = markedDriver();
    const tools = ['pdb', ['bash', { allowLocal: true }]];
    const reset = await driver.call('reset', { path: repo(), terminal, tools, entrypoint: 'python -m pytest -q test_app.py' });
    expect(reset).toHaveProperty('result');
    const pdb = await driver.call('step', { name: 'pdb', arguments: { command: 'b app.py:2' } });
    expect(JSON.stringify(pdb)).toContain('Breakpoint 1 at');
    const pending = driver.call('step', { name: 'bash', arguments: { command: "bash -c 'sleep 600; true' & sleep 600", timeout: 3600 } });
    // The step is running once its processes show up.
    await expect.poll(async () => (await markedProcesses(token)).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    pending.catch(() => undefined); // a SIGKILLed driver never answers: only the SIGTERM attack awaits it
    return { driver, token, pending };
  }

  attack('SIGKILL of serve mid-episode, then gc: no process, dir or container survives; a live driver is untouched', backend.name, async () => {
    scratch = newScratch();
    const live = await busyDriver();
    const liveDirs = sandboxDirs();
    const victim = await busyDriver();
    const victimDirs = sandboxDirs().filter((name) => !liveDirs.includes(name));

    expect(await victim.driver.kill('SIGKILL', EXIT_LIMIT_MS)).toBe('SIGKILL');
    const report = await gc({ leaseDir: leaseDir() });
    expect(report.live).toBe(backend.name === 'docker' ? 0 : 1); // Docker sandboxes are found by their labels

    await expect.poll(() => markedProcesses(victim.token), { timeout: EXIT_LIMIT_MS }).toEqual([]);
    expect(sandboxDirs().filter((name) => victimDirs.includes(name))).toEqual([]);
    if (backend.name === 'docker') await expect.poll(() => containersOf(victim.driver.pid), { timeout: EXIT_LIMIT_MS }).toEqual([]);

    // The other driver's sandbox kept everything and still works.
    expect((await markedProcesses(live.token)).length).toBeGreaterThanOrEqual(3);
    expect(sandboxDirs()).toEqual(liveDirs);
    if (backend.name === 'docker') expect(await containersOf(live.driver.pid)).toHaveLength(1);
    expect(await live.driver.kill('SIGTERM', EXIT_LIMIT_MS)).not.toBe('timeout');
  }, 240_000);

  // Scoring runs stop the agent's processes (SIGSTOP) and continue them afterwards; a driver killed in
  // between never continues them. The local backend does not pause (its processes are the host's).
  if (backend.name !== 'local') {
    attack('SIGKILL of serve while scoring has the agent\'s processes stopped, then gc: the stopped processes die with the sandbox', backend.name, async () => {
      scratch = newScratch();
      const { driver, token, terminal } = markedDriver();
      // The test waits while slow.flag exists: only the scoring run after the agent made it is slow.
      const path = testdir({
        'app.py': 'def add(a, b):\n    return a - b\n',
        'test_app.py': 'import os, time\nfrom app import add\n\n\ndef test_add():\n    while os.path.exists("slow.flag"):\n        time.sleep(0.2)\n    assert add(1, 2) == 3\n',
      });
      expect(await driver.call('reset', { path, terminal, tools: ['eval', 'pdb', ['bash', { allowLocal: true }]], entrypoint: 'python -m pytest -q test_app.py' })).toHaveProperty('result');
      // The agent's process that stays between steps: its pdb session.
      expect(JSON.stringify(await driver.call('step', { name: 'pdb', arguments: { command: 'b app.py:2' } }))).toContain('Breakpoint 1 at');
      await driver.call('step', { name: 'bash', arguments: { command: 'touch slow.flag' } });
      driver.call('step', { name: 'eval', arguments: {} }).catch(() => undefined); // never answered: the driver is killed
      // Scoring has begun once the agent's pdb is stopped (state T).
      const stopped = async (): Promise<number> => {
        let count = 0;
        for (const pid of await markedProcesses(token)) {
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
          if (/^T/.test(stat.slice(stat.lastIndexOf(')') + 2))) count += 1;
        }
        return count;
      };
      await expect.poll(stopped, { timeout: 60_000 }).toBeGreaterThanOrEqual(1);
      expect(await driver.kill('SIGKILL', EXIT_LIMIT_MS)).toBe('SIGKILL');
      await gc({ leaseDir: leaseDir() });
      await expect.poll(() => markedProcesses(token), { timeout: EXIT_LIMIT_MS }).toEqual([]);
      expect(sandboxDirs()).toEqual([]);
      if (backend.name === 'docker') await expect.poll(() => containersOf(driver.pid), { timeout: EXIT_LIMIT_MS }).toEqual([]);
    }, 240_000);
  }

  attack('SIGTERM of serve during a 600 s step: it answers the step with an error, exits with 143 and leaves nothing', backend.name, async () => {
    scratch = newScratch();
    const { driver, token, pending } = await busyDriver();
    expect(await driver.kill('SIGTERM', EXIT_LIMIT_MS)).toBe(143);
    expect(await pending).toMatchObject({ error: { code: -32000, data: { code: 'DG_SERVE_SHUTTING_DOWN' } } });
    expect(await markedProcesses(token)).toEqual([]);
    expect(sandboxDirs()).toEqual([]);
    expect(existsSync(leaseDir()) ? readdirSync(leaseDir()) : []).toEqual([]);
    if (backend.name === 'docker') expect(await containersOf(driver.pid)).toEqual([]);
  }, 240_000);
});
