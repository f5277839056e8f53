import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { leanWireInfoSchema, WIRE_FIELDS, wireInfoSchema } from '../src/index.js';
import { buggyRepo, FIX, local, markedProcesses, TestServer } from './helpers/server.js';

describe('one server, several sessions (local sandboxes)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.start({ maxSessions: 3, idleTtlSeconds: 0 });
  });
  afterAll(() => server.close());

  test('OpenEnv endpoints: health, metadata, schema, capacity', async () => {
    expect((await server.request('GET', '/health')).body).toEqual({ status: 'healthy' });
    const metadata = await server.request('GET', '/metadata');
    expect(Object.keys(metadata.body).sort()).toEqual(['author', 'description', 'documentation_url', 'name', 'readme_content', 'version']);
    expect(metadata.body.name).toBe('debug-gym');
    const schema = await server.request('GET', '/schema');
    expect(Object.keys(schema.body).sort()).toEqual(['action', 'observation', 'state']);
    expect(schema.body.action.required).toEqual(['name']);
    expect(Object.keys(schema.body.observation.properties).sort()).toEqual([...WIRE_FIELDS.map(([, snake]) => snake), 'done'].sort());
    expect((await server.request('GET', '/capacity')).body).toMatchObject({ active_sessions: 0, busy_sessions: 0, max_sessions: 3, memory_bytes: { in_use: 0 }, pids: { in_use: 0 } });
  });

  test('reset → steps with the original snake_case names; a lean step sends what changed; the reward is the score gained', async () => {
    const { id, reset } = await server.open(buggyRepo());
    expect(reset.body).toMatchObject({ session_id: id, reward: null, done: false, info: { score: 1, max_score: 2, resolved: false, truncated: false, step_count: 0 } });
    expect(wireInfoSchema.strict().parse(reset.body.observation)).toBeTruthy();
    expect(reset.body.observation).toMatchObject({ max_score: 2, rewrite_counter: 0, current_breakpoints: 'No breakpoints are set.', done: false });

    const view = await server.step(id, { name: 'view', arguments: { path: 'app.py' } }, { reply: 'lean' });
    expect(leanWireInfoSchema.strict().parse(view.body.observation)).toBeTruthy();
    expect(view.body.observation.step_observation.observation).toContain('return a - b');
    // Unchanged since the reset: not sent.
    for (const field of ['dir_tree', 'tools', 'instructions', 'eval_observation', 'last_eval', 'all_observations', 'rewrite_counter', 'workdir']) expect(view.body.observation).not.toHaveProperty(field);
    const forced = await server.step(id, { name: 'view', arguments: { path: 'app.py' } }, { reply: 'lean', include: ['dir_tree', 'rewriteCount'] });
    expect(forced.body.observation).toMatchObject({ dir_tree: reset.body.observation.dir_tree, rewrite_counter: 0 });

    const created = await server.step(id, { name: 'rewrite', arguments: { path: 'notes.py', new_code: 'x = 1' } }, { reply: 'lean' });
    expect(created.body.observation.dir_tree).toContain('notes.py');
    expect(created.body.observation.rewrite_counter).toBe(1);
    await server.step(id, FIX, { reply: 'lean' });
    const evaluation = await server.step(id, { name: 'eval' }, { reply: 'lean' });
    expect(evaluation.body).toMatchObject({ reward: 1, done: true, info: { score: 2, resolved: true, terminated: true, termination_reason: 'resolved', step_count: 5 } });
    expect(evaluation.body.observation).toMatchObject({ last_eval: { score: 2, max_score: 2, timed_out: false, exit_code: 0 }, eval_observation: { source: 'env' } });
    expect(evaluation.body.info.env_ms).toBeGreaterThan(0);

    const state = await server.request('GET', `/state?session_id=${id}`);
    expect(state.body).toMatchObject({ session_id: id, step_count: 5, score: 2, resolved: true, done: true, termination_reason: 'resolved', backend: 'local', running: null });
    const after = await server.step(id, { name: 'eval' });
    expect(after).toMatchObject({ status: 409, body: { error: { code: 'DG_EPISODE_DONE', reason: 'resolved' } } });
    // The same session resets again: the same env, a new episode.
    const again = await server.post('/reset', {}, { 'x-session-id': id });
    expect(again.body).toMatchObject({ session_id: id, info: { score: 1, step_count: 0 } });

    expect((await server.post('/close', { session_id: id })).body).toEqual({ session_id: id, closed: true });
    expect((await server.post('/close', { session_id: id })).body).toEqual({ session_id: id, closed: true, reason: 'closed by the client' });
    expect(await server.step(id, { name: 'eval' })).toMatchObject({ status: 410, body: { error: { code: 'DG_SESSION_CLOSED', reason: 'closed by the client' } } });
    expect(await server.step('never-opened', { name: 'eval' })).toMatchObject({ status: 404, body: { error: { code: 'DG_UNKNOWN_SESSION' } } });
  });

  test('bad requests get precise 4xx answers and leave the other sessions working', async () => {
    const { id } = await server.open(buggyRepo());
    const bad = [
      [await server.post('/step', '{"session_id": "x", "action": {'), 400, 'DG_MALFORMED_JSON'],
      [await server.post('/step', 'plain', { 'content-type': 'text/plain' }), 415, 'DG_UNSUPPORTED_MEDIA_TYPE'],
      [await server.post('/reset', { path: buggyRepo(), tols: ['view'] }), 422, 'DG_INVALID_REQUEST'],
      [await server.post('/reset', { path: buggyRepo(), terminal: local, tools: ['no-such-tool'] }), 400, 'DG_PLUGIN_LOAD_FAILED'],
      [await server.post('/reset', { benchmark: 'mini-nightmare' }), 422, 'DG_INVALID_REQUEST'],
      [await server.post('/step', { action: { name: 'view' } }), 422, 'DG_INVALID_REQUEST'],
      [await server.post('/step', { session_id: id, action: { name: 'view' } }, { 'x-session-id': 'other' }), 422, 'DG_INVALID_REQUEST'],
      [await server.step(id, { name: 'view', argz: {} }), 422, 'DG_INVALID_REQUEST'],
      [await server.step(id, { name: 'view' }, { reply: 'tiny' }), 422, 'DG_INVALID_REQUEST'],
      [await server.step(id, { name: 'view' }, { include: ['dir_tre'] }), 422, 'DG_INVALID_REQUEST'],
      [await server.step(id, { name: 'view', arguments: JSON.parse('{"a":'.repeat(100) + '1' + '}'.repeat(100)) }), 400, 'DG_MALFORMED_REQUEST'],
      [await server.post('/reset', { path: buggyRepo(), seed: -1 }), 422, 'DG_INVALID_REQUEST'],
      [await server.request('GET', '/nope'), 404, 'DG_NOT_FOUND'],
      [await server.request('GET', '/state'), 422, 'DG_INVALID_REQUEST'],
    ] as const;
    for (const [answer, status, code] of bad) expect({ status: answer.status, code: answer.body.error?.code }).toEqual({ status, code });
    expect(bad[2][0].body.error.message).toContain('Unknown key `tols`; did you mean `tools`?');
    expect(bad[4][0].body.error.issues).toEqual([expect.stringContaining('`task` must be given with `benchmark` and `task` together')]);
    // A bad tool call is no error: it comes back as the observation, as from RepoEnv.step.
    const unknownTool = await server.step(id, { name: 'nope' });
    expect(unknownTool.body.observation.step_observation.observation).toContain("Tool 'nope' not found");
    expect((await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).status).toBe(200);
    // None of the refused resets holds a slot.
    expect((await server.request('GET', '/capacity')).body.active_sessions).toBe(1);
    await server.post('/close', { session_id: id });
  });

  test('one request at a time per session; closing a session kills its running step; other sessions go on', async () => {
    const marker = `busy-${process.pid}`;
    const repo = buggyRepo();
    const { id } = await server.open(repo, { terminal: { ...local, env: { SERVER_TEST: marker } } });
    const { id: other } = await server.open(repo);
    const running = server.step(id, { name: 'bash', arguments: { command: 'sleep 300', timeout: 600 } });
    await vi.waitFor(() => expect(markedProcesses(marker)).not.toEqual([]), { timeout: 60_000 });
    expect(await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).toMatchObject({ status: 409, body: { error: { code: 'DG_SESSION_BUSY' } } });
    expect((await server.request('GET', `/state?session_id=${id}`)).body.running).toBe('step');
    expect((await server.request('GET', '/capacity')).body).toMatchObject({ active_sessions: 2, busy_sessions: 1 });
    expect((await server.step(other, { name: 'view', arguments: { path: 'app.py' } })).status).toBe(200);
    await server.post('/close', { session_id: id });
    expect(await running).toMatchObject({ status: 410, body: { error: { code: 'DG_SESSION_CLOSED' } } });
    expect(markedProcesses(marker)).toEqual([]);
    await server.post('/close', { session_id: other });
  });

  test('at most --max-sessions at once: more are answered 503 with a Retry-After', async () => {
    const repo = buggyRepo();
    const ids = [];
    for (let index = 0; index < 3; index += 1) ids.push((await server.open(repo, { eval_on_reset: false, tools: ['view'] })).id);
    const refused = await server.post('/reset', { path: repo, terminal: local, tools: ['view'] });
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'DG_SERVER_FULL', max_sessions: 3 } } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await server.post('/close', { session_id: ids[0] });
    const { id } = await server.open(repo, { tools: ['view'] });
    for (const open of [...ids.slice(1), id]) await server.post('/close', { session_id: open });
  });

  test('fork branches a session under a new id: same state, independent edits; a retry is one fork; a full server answers 503', async () => {
    const { id } = await server.open(buggyRepo(), { tools: ['view', 'eval', 'rewrite'] });
    await server.step(id, FIX);
    const fork = await server.post('/fork', { request_id: 'f-1' }, { 'x-session-id': id });
    expect(fork.body).toMatchObject({ forked_from: id, warnings: [], reward: null, done: false, info: { score: 1, max_score: 2, step_count: 1 }, observation: { rewrite_counter: 1 } });
    expect(wireInfoSchema.strict().parse(fork.body.observation)).toBeTruthy();
    const branch = fork.body.session_id as string;
    expect(branch).not.toBe(id);
    expect((await server.post('/fork', { session_id: id, request_id: 'f-1' })).body).toEqual(fork.body);
    await server.step(branch, { ...FIX, arguments: { ...FIX.arguments, new_code: '    return a * b' } });
    expect((await server.step(branch, { name: 'eval' })).body.info).toMatchObject({ score: 1, step_count: 3 });
    expect((await server.step(id, { name: 'eval' })).body.info).toMatchObject({ score: 2, resolved: true, step_count: 2 });
    expect((await server.post('/fork', { session_id: id, new_session_id: 'third' })).body).toMatchObject({ session_id: 'third', forked_from: id });
    const refused = await server.post('/fork', { session_id: branch });
    expect(refused).toMatchObject({ status: 503, body: { error: { code: 'DG_SERVER_FULL', max_sessions: 3 } } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await server.request('GET', '/capacity')).body).toMatchObject({ active_sessions: 3 });
    await server.post('/close', { session_id: id });
    expect((await server.step(branch, { name: 'view', arguments: { path: 'app.py' } })).body.observation.step_observation.observation).toContain('return a * b');
    expect(await server.post('/fork', { session_id: branch, tools: [] })).toMatchObject({ status: 422, body: { error: { code: 'DG_INVALID_REQUEST' } } });
    expect(await server.post('/fork', { session_id: 'never-opened' })).toMatchObject({ status: 404, body: { error: { code: 'DG_UNKNOWN_SESSION' } } });
    for (const open of [branch, 'third']) await server.post('/close', { session_id: open });
  });

  test('a request sent again with the same request_id (a client retry) is answered once, not run twice', async () => {
    const { id } = await server.open(buggyRepo(), { tools: ['view', 'rewrite'], evalOnReset: false });
    const action = { name: 'rewrite', arguments: { path: 'log.txt', new_code: 'x' } };
    const [first, second] = await Promise.all([server.step(id, action, { request_id: 'r-1' }), server.step(id, action, { request_id: 'r-1' })]);
    expect(second.body).toEqual(first.body);
    expect(first.body.info.step_count).toBe(1);
    expect((await server.step(id, action, { request_id: 'r-2' })).body.info.step_count).toBe(2);
    await server.post('/close', { session_id: id });
  });

  test('reset options in snake_case, a client-chosen session id, and OpenEnv seed / episode_id', async () => {
    const reset = await server.post('/reset', { path: buggyRepo(), terminal: { type: 'local', python: local.python, max_output_bytes: 100_000 }, tools: ['view'], eval_on_reset: false, dir_tree_depth: 2, seed: 7, episode_id: 'ep-1' }, { 'x-session-id': 'my-session.1' });
    expect(reset.body).toMatchObject({ session_id: 'my-session.1', observation: { last_eval: null, eval_observation: null, max_score: null } });
    expect((await server.request('GET', '/state', undefined, { 'x-session-id': 'my-session.1' })).body).toMatchObject({ seed: 7, episode_id: 'ep-1', task: expect.stringContaining('repo-') });
    expect(await server.post('/reset', { path: buggyRepo() }, { 'x-session-id': 'bad id!' })).toMatchObject({ status: 422, body: { error: { code: 'DG_INVALID_REQUEST' } } });
    await server.post('/close', {}, { 'x-session-id': 'my-session.1' });
  });

  test('/metrics in the Prometheus text format', async () => {
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = metrics.body as string;
    expect(text).toMatch(/^debug_gym_steps_total\{backend="local",outcome="ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^debug_gym_step_duration_seconds_count\{backend="local"\} [1-9]\d*$/m);
    expect(text).toMatch(/^debug_gym_sandbox_starts_total\{backend="local"\} [1-9]\d*$/m);
    expect(text).toMatch(/^debug_gym_sessions_open\{state="idle"\} 0$/m);
    expect(text).toMatch(/^debug_gym_requests_rejected_total\{code="DG_SERVER_FULL"\} 2$/m);
    expect(text).toMatch(/^debug_gym_sessions_closed_total\{reason="client"\} [1-9]\d*$/m);
    expect(text).toContain('debug_gym_server_process_resident_memory_bytes');
  });
});

describe('limits, tokens, time limits and shutdown', () => {
  test('a body over --max-body-bytes is answered 413; the server goes on', async () => {
    const server = await TestServer.start({ maxBodyBytes: 2048 });
    try {
      const { id } = await server.open(buggyRepo(), { tools: ['view'], evalOnReset: false });
      const big = await server.step(id, { name: 'view', arguments: { path: 'x'.repeat(4096) } });
      expect(big).toMatchObject({ status: 413, body: { error: { code: 'DG_BODY_TOO_LARGE', message: expect.stringContaining('2048 bytes') } } });
      expect((await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('a non-loopback host needs a token; with one, every request but /health must carry it', async () => {
    const { createHttpServer } = await import('../src/index.js');
    await expect(createHttpServer({ host: '0.0.0.0', logLevel: 'silent' })).rejects.toMatchObject({ code: 'DG_SERVER_CONFIG', message: expect.stringContaining('without a token') });
    const server = await TestServer.start({ token: 't0ken' });
    try {
      const anonymous = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers });
      expect((await anonymous('/health')).status).toBe(200);
      const refused = await anonymous('/capacity');
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="debug-gym"');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('DG_UNAUTHORIZED');
      expect((await anonymous('/capacity', { authorization: 'Bearer wrong' })).status).toBe(401);
      expect((await server.request('GET', '/capacity')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('an idle session is reaped after --idle-ttl: its sandbox is removed and a late request hears why', async () => {
    const server = await TestServer.start({ idleTtlSeconds: 0.5 });
    try {
      const { id, reset } = await server.open(buggyRepo(), { tools: ['view'], evalOnReset: false });
      const workdir = reset.body.observation.workdir as string;
      expect(existsSync(workdir)).toBe(true);
      await vi.waitFor(() => expect(existsSync(workdir)).toBe(false), { timeout: 30_000, interval: 100 });
      expect(server.server.sessions.size).toBe(0);
      expect(await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).toMatchObject({ status: 410, body: { error: { reason: expect.stringContaining('idle for more than 0.5 s') } } });
    } finally {
      await server.close();
    }
  });

  test('a step past its time limit is cancelled (504), its command killed, the episode over until the next reset', async () => {
    const server = await TestServer.start();
    const marker = `timeout-${process.pid}`;
    try {
      const { id } = await server.open(buggyRepo(), { terminal: { ...local, env: { SERVER_TEST: marker } }, tools: ['bash', 'view'], evalOnReset: false });
      const slow = await server.step(id, { name: 'bash', arguments: { command: 'sleep 300', timeout: 600 } }, { timeout_s: 0.5 });
      expect(slow).toMatchObject({ status: 504, body: { error: { code: 'DG_STEP_TIMEOUT', timeout_s: 0.5 } } });
      expect(markedProcesses(marker)).toEqual([]);
      expect(await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).toMatchObject({ status: 409, body: { error: { code: 'DG_EPISODE_DONE', reason: expect.stringContaining('longer than 0.5 s') } } });
      expect((await server.request('GET', `/state?session_id=${id}`)).body).toMatchObject({ done: true, termination_reason: expect.stringContaining('longer than') });
      expect((await server.post('/reset', {}, { 'x-session-id': id })).status).toBe(200);
      expect((await server.step(id, { name: 'view', arguments: { path: 'app.py' } })).status).toBe(200);
      const metrics = (await server.request('GET', '/metrics')).body as string;
      expect(metrics).toMatch(/^debug_gym_steps_total\{backend="local",outcome="timeout"\} 1$/m);
    } finally {
      await server.close();
    }
  });

  test('closing the server closes every session: running steps are answered, their commands killed, sandboxes removed', async () => {
    const server = await TestServer.start();
    const marker = `shutdown-${process.pid}`;
    const { id, reset } = await server.open(buggyRepo(), { terminal: { ...local, env: { SERVER_TEST: marker } }, tools: ['bash'], evalOnReset: false });
    const running = server.step(id, { name: 'bash', arguments: { command: 'sleep 300', timeout: 600 } });
    await vi.waitFor(() => expect(markedProcesses(marker)).not.toEqual([]), { timeout: 60_000 });
    await server.close();
    expect(await running).toMatchObject({ status: 410, body: { error: { code: 'DG_SESSION_CLOSED', reason: 'the server is shutting down' } } });
    expect(markedProcesses(marker)).toEqual([]);
    expect(existsSync(reset.body.observation.workdir as string)).toBe(false);
    expect(server.server.sessions.size).toBe(0);
  });
});
