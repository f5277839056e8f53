// MCP servers' tools as env tools: discovery and calls through the official SDK client, against a
// real server written as the SDK's examples are (test/fixtures/example-server.mjs), over Streamable
// HTTP, the old HTTP+SSE transport and stdio.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RepoEnv } from '@debug-gym/core';
import { LocalTerminal } from '@debug-gym/terminal';
import view from '@debug-gym/tool-view';
import { testPython, testdir } from '@debug-gym/test-utils';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { discoverMcpServer, discoverMcpTools, formatToolResult, toToolParameters, type McpServerConfig } from '../src/index.js';
// @ts-expect-error: a plain .mjs fixture (it is also run by node as a stdio server), no types
import { startExampleHttpServer, startExampleSseServer } from './fixtures/example-server.mjs';

interface ExampleHttpServer {
  url: string;
  port: number;
  sessions: Map<string, unknown>;
  close(): Promise<void>;
}
const exampleServer = fileURLToPath(new URL('./fixtures/example-server.mjs', import.meta.url));
const startHttp = startExampleHttpServer as (port?: number, options?: { token?: string }) => Promise<ExampleHttpServer>;

/** A port nothing listens on: bound, noted, closed. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function repoEnv(tools: unknown[]): RepoEnv {
  return new RepoEnv({
    path: testdir({ 'app.py': 'def add(a, b):\n    return a - b\n' }),
    terminal: new LocalTerminal({ python: testPython }),
    tools: [view, ...tools] as never,
    evalOnReset: false,
    forkServer: false,
  });
}

describe('discovery', () => {
  let server: ExampleHttpServer;
  beforeAll(async () => {
    server = await startHttp();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('lists a Streamable HTTP server tools as tool plugins: prefixed, callable names, the server descriptions and schemas', async () => {
    const found = await discoverMcpServer({ name: 'example', url: server.url, toolPrefix: 'mcp_' });
    expect(found.transport).toBe('streamable_http');
    expect(found.serverInfo).toEqual({ name: 'example-server', version: '1.2.3' });
    expect(found.tools.map((tool) => tool.name)).toEqual(['mcp_add', 'mcp_echo', 'mcp_tag_search', 'mcp_count', 'mcp_fail', 'mcp_slow', 'mcp_picture', 'mcp_exit']);
    expect(found.names.mcp_tag_search).toBe('tag.search');
    const add = found.tools[0];
    expect(add?.description).toBe('Add two numbers.');
    expect(add?.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number', description: 'Second number' } },
      required: ['a', 'b'],
    });
    expect(add?.parameters).not.toHaveProperty('$schema');
    // A tool without arguments still gets an object schema with properties.
    expect(found.tools[3]?.parameters).toMatchObject({ type: 'object', properties: {} });
    // The discovery session is closed on the server before discovery returns.
    await until(() => server.sessions.size === 0, 'the discovery session to end');
  });

  it('keeps only the tools `tools` names, and says which names a server does not have', async () => {
    const tools = await discoverMcpTools({ name: 'example', url: server.url, tools: ['echo', 'add'] });
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'echo']);
    const error = await discoverMcpTools({ name: 'example', url: server.url, tools: ['add', 'query'] }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'DG_MCP_SERVER_CONFIG' });
    expect((error as Error).message).toMatch(/MCP server `example`: `tools` names `query`, which the server \(http:\/\/127\.0\.0\.1:\d+\/mcp\) does not have\. Its tools: add, echo, tag\.search, count/);
  });

  it('refuses configs that cannot work before connecting, saying what to write', async () => {
    const cases: Array<[McpServerConfig, RegExp]> = [
      [{ name: 'x' }, /give `url` \(a Streamable HTTP or SSE endpoint\) or `command`/],
      [{ name: 'x', url: 'localhost:8000' }, /`url` must be http:\/\/ or https:\/\/|is not a URL/],
      [{ name: 'x', url: server.url, command: 'node' }, /either `url` or `command`, not both/],
      [{ name: 'x', transport: 'stdio' }, /a stdio server needs `command`/],
      [{ name: 'x', url: server.url, transport: 'websocket' as never }, /unknown transport "websocket"/],
      [{ name: 'x', url: server.url, timeout: 0 }, /`timeout` must be a number of seconds above 0/],
      [{ name: 'x', url: server.url, toolPrefix: 'a b' }, /`tool_prefix` may only contain/],
    ];
    for (const [config, message] of cases) {
      const error = await discoverMcpTools(config).catch((caught: unknown) => caught);
      expect(error, JSON.stringify(config)).toMatchObject({ code: 'DG_MCP_SERVER_CONFIG' });
      expect((error as Error).message).toMatch(message);
    }
  });

  it('explains a server that cannot be reached or started, with the reason and the server stderr', async () => {
    const port = await freePort();
    const refused = await discoverMcpTools({ name: 'down', url: `http://127.0.0.1:${port}/mcp` }).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
    expect((refused as Error).message).toMatch(new RegExp(`the MCP server \`down\` \\(http://127\\.0\\.0\\.1:${port}/mcp\\) could not be reached: fetch failed: .*ECONNREFUSED.*Check that the server is running`));

    const missing = await discoverMcpTools({ name: 'nope', command: '/nonexistent/mcp-server' }).catch((caught: unknown) => caught);
    expect(missing).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
    expect((missing as Error).message).toMatch(/the MCP server `nope` \(\/nonexistent\/mcp-server\) could not be started: .*ENOENT/);

    const broken = await discoverMcpTools({ name: 'broken', command: process.execPath, args: [exampleServer, '--broken'] }).catch((caught: unknown) => caught);
    expect(broken).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
    expect((broken as Error).message).toMatch(/the MCP server `broken` .* closed the connection before the MCP handshake ended\. Check that `command` starts an MCP server[\s\S]*stderr:\nexample-server: cannot start: missing API token/);

    const wrongPath = await discoverMcpTools({ name: 'wrong', url: server.url.replace('/mcp', '/api'), transport: 'streamable_http' }).catch((caught: unknown) => caught);
    expect(wrongPath).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
    expect((wrongPath as Error).message).toMatch(/answered HTTP 404: .*Check the `url` path/);
  });

  it('sends `headers` with every request; without them a server that wants a token says so', async () => {
    const guarded = await startHttp(0, { token: 'sesame' });
    try {
      const refused = await discoverMcpTools({ name: 'guarded', url: guarded.url, transport: 'streamable_http' }).catch((caught: unknown) => caught);
      expect(refused).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
      expect((refused as Error).message).toMatch(/answered HTTP 401: .*Check `headers` \(e\.g\. the Authorization token\)/);
      const tools = await discoverMcpTools({ name: 'guarded', url: guarded.url, headers: { Authorization: 'Bearer sesame' }, tools: ['add'] });
      const env = repoEnv(tools);
      try {
        await env.reset();
        expect((await env.step({ name: 'add', arguments: { a: 1, b: 2 } })).stepObservation.observation).toBe('3');
      } finally {
        await env.close();
      }
    } finally {
      await guarded.close();
    }
  });

  it('connects to an SSE-only server (the original default transport): by the fallback, or with transport: sse', async () => {
    const sse = (await startExampleSseServer()) as { url: string; close(): Promise<void> };
    try {
      const auto = await discoverMcpServer({ name: 'old', url: sse.url, tools: ['add'] });
      expect(auto.transport).toBe('sse');
      const forced = await discoverMcpServer({ name: 'old', url: sse.url, transport: 'sse', tools: ['add'] });
      expect(forced.transport).toBe('sse');
      const strict = await discoverMcpTools({ name: 'old', url: sse.url, transport: 'streamable_http' }).catch((caught: unknown) => caught);
      expect(strict).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
      // An env calls it over SSE too.
      const env = repoEnv(auto.tools);
      try {
        await env.reset();
        expect((await env.step({ name: 'add', arguments: { a: 40, b: 2 } })).stepObservation.observation).toBe('42');
      } finally {
        await env.close();
      }
    } finally {
      await sse.close();
    }
  });
});

describe('as env tools over Streamable HTTP', () => {
  let server: ExampleHttpServer;
  const envs: RepoEnv[] = [];
  beforeAll(async () => {
    server = await startHttp();
  });
  afterEach(async () => {
    for (const env of envs.splice(0)) await env.close();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers calls with the server results, validates arguments as for built-in tools, and keeps the episode going after errors', async () => {
    const tools = await discoverMcpTools({ name: 'example', url: server.url, toolPrefix: 'mcp_' });
    const env = repoEnv(tools);
    envs.push(env);
    const info = await env.reset();
    expect(info.tools.map((tool) => tool.function.name)).toEqual(['view', 'mcp_add', 'mcp_echo', 'mcp_tag_search', 'mcp_count', 'mcp_fail', 'mcp_slow', 'mcp_picture', 'mcp_exit']);
    expect(info.instructions).toContain('### mcp_add\nAdd two numbers.');
    // No note at reset when the server is up; one session for all of the server's tools.
    expect(info.allObservations.map((item) => item.source)).not.toContain('mcp_add');
    expect(server.sessions.size).toBe(1);

    const step = async (name: string, args: Record<string, unknown>): Promise<string> => {
      const result = await env.step({ name, arguments: args });
      expect(result.stepObservation.source).toBe(name);
      expect(result.terminated).toBe(false);
      return result.stepObservation.observation;
    };
    expect(await step('mcp_add', { a: 2, b: 3 })).toBe('5');
    expect(await step('mcp_add', { a: '2', b: 3 })).toBe('5'); // a quoted integer, as for built-in tools
    expect(await step('mcp_add', { a: 'two', b: 3 })).toBe('Invalid arguments for tool `mcp_add`: argument `a` must be a number. Usage: mcp_add(a: number, b: number)');
    expect(await step('mcp_add', { a: 1 })).toBe('Invalid arguments for tool `mcp_add`: missing required argument `b`. Usage: mcp_add(a: number, b: number)');
    expect(await step('mcp_add', { a: 1, b: 2, c: 3 })).toMatch(/^Invalid arguments for tool `mcp_add`: unexpected argument `c`\./);
    expect(await step('mcp_echo', { message: 'hi', times: 2 })).toBe('hi\nhi');
    expect(await step('mcp_echo', { message: 'hi', times: null })).toBe('hi'); // null: the default, as for built-in tools
    expect(await step('mcp_echo', { message: 'hi', times: 9 })).toMatch(/^Invalid arguments for tool `mcp_echo`: argument `times` must be <= 3\./);
    expect(await step('mcp_tag_search', { query: 'x', filters: { kind: 'bug' } })).toBe('tags for x (bug)');
    expect(await step('mcp_tag_search', { query: 'x', filters: { kind: 'chore' } })).toMatch(/^Invalid arguments for tool `mcp_tag_search`: argument `filters\/kind` must be equal to one of the allowed values/);
    expect(await step('mcp_fail', { reason: 'disk full' })).toBe('The MCP tool `fail` reported an error:\nfailing on purpose: disk full');
    expect(await step('mcp_picture', {})).toBe('a red dot:\n[image image/png, 2.0 kB]\n[resource link file:///dot.png (dot.png)]');
    // An unknown tool is answered like any unknown tool.
    const unknown = await env.step({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(unknown.stepObservation.observation).toMatch(/^Tool 'add' not found among available tools: view, mcp_add, /);
    // The episode goes on: the same session, still answering.
    expect(await step('mcp_count', {})).toBe('call 1');
    expect(await step('mcp_count', {})).toBe('call 2');
    expect(server.sessions.size).toBe(1);
    await env.close();
    await until(() => server.sessions.size === 0, 'the env session to be deleted on close');
  });

  it('a call the server does not answer in time becomes an observation, and the next call works', async () => {
    const tools = await discoverMcpTools({ name: 'example', url: server.url, tools: ['slow', 'add'], timeout: 5 });
    const env = repoEnv(tools);
    envs.push(env);
    await env.reset();
    const slow = await env.step({ name: 'slow', arguments: { ms: 60_000 } });
    expect(slow.stepObservation.observation).toMatch(/^slow failed: the MCP server `example` \(http:\/\/127\.0\.0\.1:\d+\/mcp\) did not answer within 5 s\. .*larger `timeout`/);
    expect((await env.step({ name: 'add', arguments: { a: 1, b: 1 } })).stepObservation.observation).toBe('2');
  });

  it('a forked env gets its own session; reset opens a new one; each closes with its env', async () => {
    const tools = await discoverMcpTools({ name: 'example', url: server.url, tools: ['count'] });
    const env = repoEnv(tools);
    envs.push(env);
    await env.reset();
    expect((await env.step({ name: 'count', arguments: {} })).stepObservation.observation).toBe('call 1');
    const fork = await env.fork();
    envs.push(fork);
    expect(fork.forkWarnings).toEqual([]);
    expect(server.sessions.size).toBe(2);
    expect((await fork.step({ name: 'count', arguments: {} })).stepObservation.observation).toBe('call 1');
    expect((await env.step({ name: 'count', arguments: {} })).stepObservation.observation).toBe('call 2');
    await fork.close();
    await until(() => server.sessions.size === 1, 'the fork session to end');
    await env.reset();
    expect((await env.step({ name: 'count', arguments: {} })).stepObservation.observation).toBe('call 1');
    await until(() => server.sessions.size === 1, 'the old session to end after the reset');
  });
});

describe('a server that goes away', () => {
  it('unreachable at reset: one note, then each call says why it failed, the other tools work, and calls work again once it is back', async () => {
    let server = await startHttp();
    const port = server.port;
    const tools = await discoverMcpTools({ name: 'example', url: server.url, toolPrefix: 'ex_', tools: ['add', 'echo'] });
    await server.close();
    const env = repoEnv(tools);
    try {
      const info = await env.reset();
      const notes = info.allObservations.filter((item) => item.source.startsWith('ex_'));
      expect(notes).toHaveLength(1);
      expect(notes[0]?.observation).toMatch(/^MCP server `example` is unavailable, so its tools will fail until it is back \(each call tries to connect again\): the MCP server `example` \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: fetch failed: .*ECONNREFUSED/);
      const failed = await env.step({ name: 'ex_add', arguments: { a: 1, b: 2 } });
      expect(failed.stepObservation).toMatchObject({ source: 'ex_add' });
      expect(failed.stepObservation.observation).toMatch(/^ex_add failed: the MCP server `example` \(.*\) could not be reached: fetch failed: .*ECONNREFUSED.*Check that the server is running/);
      expect(failed.terminated).toBe(false);
      expect((await env.step({ name: 'view', arguments: { path: 'app.py' } })).stepObservation.observation).toContain('return a - b');
      server = await startHttp(port);
      expect((await env.step({ name: 'ex_add', arguments: { a: 1, b: 2 } })).stepObservation.observation).toBe('3');
      // Restarted: the server forgot the session; the next call opens a new one and is sent again.
      await server.close();
      server = await startHttp(port);
      expect((await env.step({ name: 'ex_echo', arguments: { message: 'again' } })).stepObservation.observation).toBe('again');
    } finally {
      await env.close();
      await server.close();
    }
  });
});

describe('over stdio', () => {
  it('starts the server process at reset, reconnects after it crashed, and stops it at close', async () => {
    const pids = join(testdir({}), 'pids');
    const config: McpServerConfig = { name: 'local', command: process.execPath, args: [exampleServer, '--stdio'], env: { EXAMPLE_SERVER_PIDS: pids }, toolPrefix: 'local_', tools: ['count', 'exit', 'add'] };
    const found = await discoverMcpServer(config);
    expect(found.transport).toBe('stdio');
    const started = (): number[] => readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    const alive = (pid: number): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    // The discovery process was stopped before discovery returned.
    expect(started()).toHaveLength(1);
    expect(alive(started()[0] as number)).toBe(false);
    const env = repoEnv(found.tools);
    try {
      await env.reset();
      expect((await env.step({ name: 'local_count', arguments: {} })).stepObservation.observation).toBe('call 1');
      expect((await env.step({ name: 'local_count', arguments: {} })).stepObservation.observation).toBe('call 2');
      expect((await env.step({ name: 'local_exit', arguments: {} })).stepObservation.observation).toBe('bye');
      // The process is gone: the next call starts a new one (whose count starts again).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await env.step({ name: 'local_count', arguments: {} })).stepObservation.observation).toBe('call 1');
      expect((await env.step({ name: 'local_add', arguments: { a: 2, b: 2 } })).stepObservation.observation).toBe('4');
      // Discovery, reset, the restart after the crash: three processes, one still running.
      expect(started()).toHaveLength(3);
      expect(started().map(alive)).toEqual([false, false, true]);
    } finally {
      await env.close();
    }
    expect(started().map(alive)).toEqual([false, false, false]);
  });
});

describe('results and schemas', () => {
  it('turns every kind of content into observation text', () => {
    const blob = Buffer.alloc(3000).toString('base64');
    expect(formatToolResult({ content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] }, 't')).toBe('one\ntwo');
    expect(formatToolResult({ content: [{ type: 'audio', mimeType: 'audio/wav', data: blob }] }, 't')).toBe('[audio audio/wav, 2.9 kB]');
    expect(formatToolResult({ content: [{ type: 'resource', resource: { uri: 'file:///a.txt', text: 'inside a' } }] }, 't')).toBe('inside a');
    expect(formatToolResult({ content: [{ type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob } }] }, 't')).toBe('[resource file:///a.bin (application/octet-stream), 2.9 kB]');
    expect(formatToolResult({ content: [], structuredContent: { total: 3 } }, 't')).toBe('{\n  "total": 3\n}');
    expect(formatToolResult({ toolResult: 'legacy answer' }, 't')).toBe('legacy answer');
    expect(formatToolResult({ content: [] }, 't')).toBe('(the tool returned no content)');
    expect(formatToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true }, 'lookup')).toBe('The MCP tool `lookup` reported an error:\nnope');
  });

  it("keeps the server's schema whole, and reduces one the validator cannot compile to its top-level properties", () => {
    const kept = toToolParameters('t', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } }, required: ['ids'] });
    expect(kept).toEqual({ type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } }, required: ['ids'] });
    const broken = toToolParameters('t', { type: 'object', properties: { q: { $ref: '#/$defs/missing', description: 'query' }, kind: { type: 'string', enum: ['a', 'b'] } }, required: ['q', 'gone'] });
    expect(broken).toEqual({
      type: 'object',
      properties: { q: { type: 'string', description: 'query' }, kind: { type: 'string', description: 'Parameter kind', enum: ['a', 'b'] } },
      required: ['q'],
    });
    expect(toToolParameters('t', undefined)).toEqual({ type: 'object', properties: {} });
  });
});
