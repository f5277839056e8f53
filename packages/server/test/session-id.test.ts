import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import { buggyRepo, local, TestServer } from './helpers/server.js';

// Issue 27 §4: the README promises the body, the header and the query alike for naming a session.
describe('POST /reset names its session in the body, the X-Session-Id header or the query', () => {
  let server: TestServer;
  const options = { terminal: local, tools: ['view'], eval_on_reset: false };
  beforeAll(async () => {
    server = await TestServer.start({ idleTtlSeconds: 0 });
  });
  afterAll(() => server.close());

  test.each([
    ['the body', (id: string, repo: string) => server.post('/reset', { path: repo, session_id: id, ...options })],
    ['the header', (id: string, repo: string) => server.post('/reset', { path: repo, ...options }, { 'x-session-id': id })],
    ['the query', (id: string, repo: string) => server.post(`/reset?session_id=${id}`, { path: repo, ...options })],
  ])('in %s: the first reset opens the session under that id, the next resets it again', async (place, reset) => {
    const id = `chosen-${place.replace(/\W/g, '-')}`;
    const repo = buggyRepo();
    const opened = await reset(id, repo);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    expect(opened.body.session_id).toBe(id);
    await server.step(id, { name: 'view', arguments: { path: 'app.py' } });
    const again = await reset(id, repo);
    expect(again.body).toMatchObject({ session_id: id, info: { step_count: 0 } });
    expect((await server.request('GET', `/state?session_id=${id}`)).body).toMatchObject({ session_id: id, step_count: 0 });
    await server.post('/close', { session_id: id });
  });

  test('places that agree are accepted; places that name different sessions are refused (422), whichever they are', async () => {
    const repo = buggyRepo();
    const agreed = await server.post('/reset?session_id=same', { path: repo, session_id: 'same', ...options }, { 'x-session-id': 'same' });
    expect(agreed.body.session_id).toBe('same');
    for (const [path, body, headers] of [
      ['/reset', { session_id: 'a' }, { 'x-session-id': 'b' }],
      ['/reset?session_id=a', { session_id: 'b' }, {}],
      ['/reset?session_id=a', {}, { 'x-session-id': 'b' }],
    ] as const) {
      const refused = await server.post(path, { path: repo, ...options, ...body }, headers);
      expect(refused).toMatchObject({ status: 422, body: { error: { code: 'DG_INVALID_REQUEST', message: expect.stringContaining('name different sessions') } } });
    }
    expect(await server.post('/reset', { path: repo, session_id: 7, ...options })).toMatchObject({ status: 422, body: { error: { code: 'DG_INVALID_REQUEST' } } });
    // Step and close take the same three places.
    expect((await server.post('/step?session_id=same', { action: { name: 'view', arguments: { path: 'app.py' } } })).status).toBe(200);
    expect((await server.post('/step', { action: { name: 'view', arguments: { path: 'app.py' } } }, { 'x-session-id': 'same' })).status).toBe(200);
    expect((await server.post('/close', {}, { 'x-session-id': 'same' })).body).toEqual({ session_id: 'same', closed: true });
  });

  test("on /ws a reset's session_id may repeat the connection's own id, never name another", async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
    const replies: Array<{ type: string; data: Record<string, unknown> }> = [];
    socket.on('message', (data) => replies.push(JSON.parse(String(data)) as { type: string; data: Record<string, unknown> }));
    const next = async (): Promise<{ type: string; data: Record<string, unknown> }> => {
      while (replies.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      return replies.shift() as { type: string; data: Record<string, unknown> };
    };
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'reset', data: { path: buggyRepo(), ...options } }));
    const opened = await next();
    const id = opened.data.session_id as string;
    socket.send(JSON.stringify({ type: 'reset', data: { session_id: 'another', path: buggyRepo(), ...options } }));
    expect(await next()).toMatchObject({ type: 'error', data: { error_code: 'DG_INVALID_REQUEST', status: 422 } });
    socket.send(JSON.stringify({ type: 'reset', data: { session_id: id } }));
    expect(await next()).toMatchObject({ type: 'observation', data: { session_id: id } });
    socket.close();
  });
});
