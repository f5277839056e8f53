import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { claimOf, DEFAULT_CLAIM, derivedMaxSessions, hostBudget } from '../src/session/sandbox-budget.js';
import { buggyRepo, local, TestServer } from './helpers/server.js';

const GiB = 1024 ** 3;

describe('the host budget', () => {
  test('read from pid_max (or threads-max when lower) and the memory, less a reserve; no /proc: Linux defaults', () => {
    const proc = (files: Record<string, string>) => (path: string) => {
      if (!(path in files)) throw new Error('ENOENT');
      return files[path] as string;
    };
    const host = hostBudget(proc({ '/proc/sys/kernel/pid_max': '32768\n', '/proc/sys/kernel/threads-max': '192729\n' }));
    expect(host).toMatchObject({ pidMax: 32768, pids: 32768 - 4096 });
    expect(host.memoryBytes).toBe(host.totalMemoryBytes - GiB);
    expect(hostBudget(proc({ '/proc/sys/kernel/pid_max': '4194304', '/proc/sys/kernel/threads-max': '9000' })).pidMax).toBe(9000);
    expect(hostBudget(proc({})).pidMax).toBe(32768);
  });

  test('sessions by default: as many default sandboxes as fit, at least 1, at most 64 (this machine: 2 cores, 24 GiB, pid_max 32768 → 11)', () => {
    expect(derivedMaxSessions({ memoryBytes: 25_276_026_880 - GiB, pids: 32768 - 4096 })).toBe(11);
    expect(derivedMaxSessions({ memoryBytes: 1024 * GiB, pids: 32768 - 4096 })).toBe(28);
    expect(derivedMaxSessions({ memoryBytes: 1024 * GiB, pids: 4_194_304 })).toBe(64);
    expect(derivedMaxSessions({ memoryBytes: GiB, pids: 100 })).toBe(1);
  });

  test("a sandbox's claim: its memory and process limits, else the defaults; a Kubernetes pod claims nothing here", () => {
    expect(claimOf({ type: 'docker' })).toEqual(DEFAULT_CLAIM);
    expect(claimOf({ type: 'docker', memory: '512m', pidsLimit: 256 })).toEqual({ memoryBytes: 512 * 1024 ** 2, pids: 256 });
    expect(claimOf({ type: 'bubblewrap', memory: 3 * GiB, maxProcesses: 64 })).toEqual({ memoryBytes: 3 * GiB, pids: 64 });
    expect(claimOf({ type: 'auto', maxProcesses: 4096 })).toEqual({ memoryBytes: 2 * GiB, pids: 4096 });
    expect(claimOf({ type: 'kubernetes' })).toEqual({ memoryBytes: 0, pids: 0 });
  });
});

describe('admission against the budget (small limits, local sandboxes)', () => {
  let server: TestServer;
  const options = { terminal: { ...local, max_processes: 100 }, tools: ['view'], eval_on_reset: false };
  beforeAll(async () => {
    // Room for three sandboxes of 100 processes, whatever --max-sessions says.
    server = await TestServer.start({ maxSessions: 10, pidsBudget: 350, memoryBudgetBytes: 64 * GiB, idleTtlSeconds: 0 });
  });
  afterAll(() => server.close());

  test('the sandbox that would take the sum over the host is refused 503 with the numbers and a Retry-After; a smaller one fits; closing makes room', async () => {
    const repo = buggyRepo();
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await server.open(repo, options)).id);
    expect((await server.request('GET', '/capacity')).body).toMatchObject({ active_sessions: 3, max_sessions: 10, pids: { in_use: 300, budget: 350 } });
    const refused = await server.post('/reset', { path: repo, ...options });
    expect(refused).toMatchObject({
      status: 503,
      body: { error: { code: 'DG_SERVER_BUDGET_EXHAUSTED', pids: { requested: 100, in_use: 300, budget: 350 }, message: expect.stringContaining('processes 100 asked, 300 held, budget 350') } },
    });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // A fork takes its source's limits: refused the same way.
    expect(await server.post('/fork', { session_id: ids[0] })).toMatchObject({ status: 503, body: { error: { code: 'DG_SERVER_BUDGET_EXHAUSTED' } } });
    // Resetting an open session to a bigger sandbox needs room too; the session keeps its env.
    expect(await server.post('/reset', { path: repo, ...options, terminal: { ...local, max_processes: 200 } }, { 'x-session-id': ids[0] as string })).toMatchObject({
      status: 503,
      body: { error: { code: 'DG_SERVER_BUDGET_EXHAUSTED' } },
    });
    expect((await server.step(ids[0] as string, { name: 'view', arguments: { path: 'app.py' } })).status).toBe(200);
    const small = await server.post('/reset', { path: repo, ...options, terminal: { ...local, max_processes: 50 } });
    expect(small.status).toBe(200);
    await server.post('/close', { session_id: ids[1] });
    const fits = await server.post('/reset', { path: repo, ...options });
    expect(fits.status).toBe(200);
    for (const id of [ids[0], ids[2], small.body.session_id, fits.body.session_id]) await server.post('/close', { session_id: id });
    expect((await server.request('GET', '/capacity')).body).toMatchObject({ active_sessions: 0, pids: { in_use: 0 } });
  });

  test('a sandbox bigger than the whole budget is refused for good (422), before it takes a slot', async () => {
    const refused = await server.post('/reset', { path: buggyRepo(), ...options, terminal: { ...local, max_processes: 1000 } });
    expect(refused).toMatchObject({ status: 422, body: { error: { code: 'DG_SANDBOX_OVER_BUDGET', pids: { requested: 1000, budget: 350 } } } });
    expect((await server.request('GET', '/capacity')).body.active_sessions).toBe(0);
  });

  test('--max-sessions left out: derived from the budget', async () => {
    const derived = await TestServer.start({ pidsBudget: 2 * 1024 + 10 });
    try {
      expect((await derived.request('GET', '/capacity')).body).toMatchObject({ max_sessions: 2, pids: { budget: 2058 } });
    } finally {
      await derived.close();
    }
  });
});
