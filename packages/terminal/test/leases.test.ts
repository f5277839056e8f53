import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gc, Lease, type LeaseRecord, LocalTerminal, sweepStaleLeases } from '../src/index.js';
import { dieWithParent } from '../src/parent-death.js';
import { procStat } from '../src/process-identity.js';

const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
const started: ChildProcess[] = [];

afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lease-test-'));
  chmodSync(dir, 0o700);
  return dir;
}

function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** A `sleep 600` in its own process group, optionally carrying a marker variable. */
function sleeper(env: Record<string, string> = {}): number {
  const child = spawn('sleep', ['600'], { detached: true, stdio: 'ignore', env: { PATH: process.env.PATH, ...env } });
  started.push(child);
  return child.pid as number;
}

/** The pid of a process that has exited (and was reaped): a dead owner. */
function deadPid(): number {
  const child = spawnSync('sh', ['-c', 'echo $$']);
  return Number(child.stdout.toString().trim());
}

function writeLease(dir: string, record: Partial<LeaseRecord> & { id: string }): string {
  const full: LeaseRecord = { version: 1, backend: 'local', owner: { pid: deadPid(), host: hostname() }, groups: [], dirs: [], cgroups: [], ...record };
  const file = join(dir, `${record.id}.json`);
  writeFileSync(file, JSON.stringify(full));
  return file;
}

describe('leases', () => {
  it('a started terminal leases its working copy, running command groups and process marker; close drops the lease', async () => {
    const leaseDir = privateDir();
    vi.stubEnv('DEBUG_GYM_LEASE_DIR', leaseDir);
    const terminal = new LocalTerminal({ python });
    try {
      await terminal.start();
      const running = terminal.run('sleep 30', { timeoutMs: 60_000 });
      const read = (): LeaseRecord => JSON.parse(readFileSync(join(leaseDir, readdirSync(leaseDir)[0] as string), 'utf8')) as LeaseRecord;
      await vi.waitFor(() => expect(read().groups).toHaveLength(1));
      const record = read();
      expect(record).toMatchObject({ backend: 'local', owner: { pid: process.pid }, dirs: [terminal.workdir], marker: { variable: 'DEBUG_GYM_TERMINAL_ID' } });
      expect(procStat(record.groups[0]!.pgid)?.start).toBe(record.groups[0]!.start);
      await terminal.close();
      await running;
      expect(existsSync(leaseDir)).toBe(false); // the last lease out removes the directory
    } finally {
      await terminal.close();
      vi.unstubAllEnvs();
    }
  });

  it('gc reclaims the processes and debug-gym dirs of a dead owner, after a dry run that only lists them', async () => {
    const leaseDir = privateDir();
    const parent = privateDir();
    const sandboxDir = mkdtempSync(join(parent, 'debug-gym-'));
    const foreignDir = join(parent, 'not-ours');
    mkdirSync(foreignDir);
    const leader = sleeper();
    const escaped = sleeper({ DG_MARK: 'lease-a' }); // left the group (setsid): found by its marker
    const stranger = sleeper({ DG_MARK: 'someone-else' });
    const file = writeLease(leaseDir, {
      id: 'a',
      marker: { variable: 'DG_MARK', value: 'lease-a' },
      groups: [{ pgid: leader, start: procStat(leader)?.start as string }],
      dirs: [sandboxDir, foreignDir],
    });
    const live = writeLease(leaseDir, { id: 'live', owner: { pid: process.pid, start: procStat(process.pid)?.start as string, host: hostname() }, dirs: [sandboxDir] });
    writeFileSync(join(leaseDir, `a.json.${deadPid()}.tmp`), '{');

    const dry = await gc({ leaseDir, dryRun: true, containers: false });
    expect(dry.live).toBe(1);
    expect(dry.reclaimed.map((item) => `${item.kind} ${item.what}`).sort()).toEqual(
      [`dir ${sandboxDir}`, 'lease a.json', `process ${escaped}`, `process ${leader}`].sort(),
    );
    expect([alive(leader), alive(escaped), existsSync(sandboxDir), existsSync(file)]).toEqual([true, true, true, true]);

    const report = await gc({ leaseDir, containers: false });
    expect(report.reclaimed).toHaveLength(4);
    await vi.waitFor(() => expect([alive(leader), alive(escaped)]).toEqual([false, false]));
    expect(alive(stranger)).toBe(true);
    expect(existsSync(sandboxDir)).toBe(false);
    expect(existsSync(foreignDir)).toBe(true); // not a debug-gym temp dir: never removed
    expect(readdirSync(leaseDir)).toEqual([live.split('/').pop()]);
  });

  it('a terminal start sweeps stale leases, at most once a minute', async () => {
    const leaseDir = privateDir();
    const later = Date.now() + 3_600_000;
    const now = vi.spyOn(Date, 'now').mockReturnValue(later);
    try {
      const first = writeLease(leaseDir, { id: 'stale-1' });
      await sweepStaleLeases(leaseDir);
      expect(existsSync(first)).toBe(false);
      const second = writeLease(leaseDir, { id: 'stale-2' });
      now.mockReturnValue(later + 1000);
      await sweepStaleLeases(leaseDir);
      expect(existsSync(second)).toBe(true);
      now.mockReturnValue(later + 61_000);
      await sweepStaleLeases(leaseDir);
      expect(existsSync(second)).toBe(false);
    } finally {
      now.mockRestore();
    }
  });

  it('gc leaves a reused process group alone: its leader started after the lease recorded it', async () => {
    const leaseDir = privateDir();
    const other = sleeper();
    writeLease(leaseDir, { id: 'b', groups: [{ pgid: other, start: '1' }] });
    const report = await gc({ leaseDir, containers: false });
    expect(report.reclaimed.map((item) => item.kind)).toEqual(['lease']);
    expect(alive(other)).toBe(true);
  });

  it('leases in a directory others can write are neither written nor read', async () => {
    const leaseDir = privateDir();
    chmodSync(leaseDir, 0o777);
    const file = writeLease(leaseDir, { id: 'c', dirs: [mkdtempSync(join(tmpdir(), 'debug-gym-'))] });
    expect(await gc({ leaseDir, containers: false })).toEqual({ reclaimed: [], live: 0 });
    expect(existsSync(file)).toBe(true);
    const warn = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const lease = Lease.open('local', leaseDir);
    lease.addDir('/tmp/debug-gym-x');
    expect(lease.file).toBeUndefined();
    expect(String(warn.mock.calls[0]?.[0])).toContain('is not a private directory of this user');
    warn.mockRestore();
    lease.release();
  });

  it("a local command's direct child is killed by the kernel when its parent dies (setpriv --pdeathsig)", async () => {
    expect(dieWithParent({ file: '/nonexistent/sleep', args: [], env: {}, cwd: '/' }).file).toBe('/nonexistent/sleep');
    const spec = dieWithParent({ file: '/bin/sleep', args: ['600'], env: {}, cwd: '/' });
    expect(spec.args.slice(0, 3)).toEqual(['--pdeathsig', 'KILL', '--']);
    // An intermediate shell stands in for the driver: SIGKILL it, and its child must go too.
    const shell = spawn('sh', ['-c', `${spec.file} ${spec.args.join(' ')} & echo $!; wait`], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push(shell);
    const child = await new Promise<number>((resolve) => shell.stdout!.once('data', (data: Buffer) => resolve(Number(data.toString().trim()))));
    // Until setpriv has exec'd sleep, the parent-death signal may not be set yet.
    await vi.waitFor(() => expect(readFileSync(`/proc/${child}/cmdline`, 'utf8')).toMatch(/^\/bin\/sleep\0/));
    shell.kill('SIGKILL');
    await vi.waitFor(() => expect(alive(child)).toBe(false), { timeout: 10_000 });
  });
});
