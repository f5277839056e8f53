import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { SESSION_ENDED_CLOSE_CODE } from '../src/index.js';
import { buggyRepo, FIX, local, TestServer } from './helpers/server.js';

/** A `ws` client with a queue of the server's messages. */
class Client {
  readonly socket: WebSocket;
  private readonly messages: unknown[] = [];
  private readonly waiters: Array<(message: unknown) => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, { headers });
    this.socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.messages.push(message);
    });
    this.closed = new Promise((resolve) => this.socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  next(): Promise<any> {
    if (this.messages.length > 0) return Promise.resolve(this.messages.shift());
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async send(message: unknown): Promise<any> {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    return this.next();
  }
}

describe('the WebSocket endpoint: one connection is one session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await TestServer.start({ maxSessions: 2 });
  });
  afterAll(() => server.close());

  test('reset, step (OpenEnv: the action as data), state, errors that keep the connection, close', async () => {
    const client = new Client(server.url);
    await client.opened();
    const reset = await client.send({ type: 'reset', data: { path: buggyRepo(), terminal: local, tools: ['view', 'eval', 'rewrite'] } });
    expect(reset).toMatchObject({ type: 'observation', data: { reward: null, done: false, info: { score: 1, max_score: 2 }, observation: { max_score: 2 } } });
    const id = reset.data.session_id as string;
    expect(await client.send('{"type": "step"')).toMatchObject({ type: 'error', data: { code: 'INVALID_JSON', error_code: 'DG_MALFORMED_JSON' } });
    expect(await client.send({ type: 'jump' })).toMatchObject({ type: 'error', data: { code: 'UNKNOWN_TYPE', message: expect.stringContaining('fork') } });
    expect(await client.send({ type: 'step', data: { name: 'view', argumentz: {} } })).toMatchObject({ type: 'error', data: { code: 'VALIDATION_ERROR', status: 422 } });
    const lean = await client.send({ type: 'step', data: { name: 'view', arguments: { path: 'app.py' }, reply: 'lean' } });
    expect(lean.data.observation.step_observation.observation).toContain('return a - b');
    expect(lean.data.observation).not.toHaveProperty('dir_tree');
    // A fork is a new session, reached over HTTP by its id; this socket's session goes on.
    const fork = await client.send({ type: 'fork' });
    expect(fork).toMatchObject({ type: 'fork', data: { forked_from: id, warnings: [], info: { score: 1, step_count: 1 } } });
    expect((await server.step(fork.data.session_id, FIX)).body.info.step_count).toBe(2);
    await server.post('/close', { session_id: fork.data.session_id });
    await client.send({ type: 'step', data: { action: FIX } });
    const evaluation = await client.send({ type: 'step', data: { name: 'eval' } });
    expect(evaluation).toMatchObject({ type: 'observation', data: { session_id: id, reward: 1, done: true } });
    expect(await client.send({ type: 'step', data: { name: 'eval' } })).toMatchObject({ type: 'error', data: { code: 'SESSION_ERROR', error_code: 'DG_EPISODE_DONE' } });
    expect(await client.send({ type: 'state' })).toMatchObject({ type: 'state', data: { session_id: id, step_count: 3, resolved: true } });
    // The HTTP endpoints see the same session.
    expect((await server.request('GET', `/state?session_id=${id}`)).body).toMatchObject({ step_count: 3 });
    client.socket.send(JSON.stringify({ type: 'close' }));
    expect(await client.closed).toEqual({ code: 1000, reason: 'session closed' });
    expect((await server.request('GET', `/state?session_id=${id}`)).status).toBe(410);
  });

  test('closing the socket closes the session and removes its sandbox; a full server says so and closes', async () => {
    const first = new Client(server.url);
    const second = new Client(server.url);
    await Promise.all([first.opened(), second.opened()]);
    const reset = await first.send({ type: 'reset', data: { path: buggyRepo(), terminal: local, tools: ['view'], eval_on_reset: false } });
    const workdir = reset.data.observation.workdir as string;
    const third = new Client(server.url);
    expect(await third.next()).toMatchObject({ type: 'error', data: { code: 'CAPACITY_REACHED', error_code: 'DG_SERVER_FULL' } });
    expect((await third.closed).code).toBe(1013);
    first.socket.close();
    second.socket.close();
    await vi.waitFor(() => expect(existsSync(workdir)).toBe(false), { timeout: 30_000, interval: 50 });
    expect(server.server.sessions.size).toBe(0);
  });

  test('a session the server ends (idle TTL) closes its socket with the reason; the token guards the upgrade', async () => {
    const guarded = await TestServer.start({ idleTtlSeconds: 0.5, token: 'secret' });
    try {
      const refused = new WebSocket(`${guarded.url.replace(/^http/, 'ws')}/ws`);
      const status = await new Promise((resolve) => refused.on('unexpected-response', (_request, response) => resolve(response.statusCode)));
      expect(status).toBe(401);
      const client = new Client(guarded.url, { authorization: 'Bearer secret' });
      await client.opened();
      const closed = await client.closed;
      expect(closed.code).toBe(SESSION_ENDED_CLOSE_CODE);
      expect(closed.reason).toContain('idle for more than 0.5 s');
    } finally {
      await guarded.close();
    }
  });
});
