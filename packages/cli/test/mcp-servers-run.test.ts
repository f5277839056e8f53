// `mcp_servers` in a run config: an agent driven by a scripted model (the local OpenAI-compatible
// server) calls tools of external MCP servers — an SDK example server over Streamable HTTP, and
// debug-gym's own `debug-gym mcp` over stdio — and sees their answers, validation errors and
// failures as observations while the episode goes on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testPython, testdir } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { runCommand } from '../src/index.js';
import { resolveRunConfig } from '../src/config/load-run-config.js';
import { mcpServerConfig } from '../src/runner/mcp-servers.js';
import { buggyRepo } from './helpers/fixtures.js';
import { startChatServer, toolCallCompletion, type ChatServer } from './helpers/chat-server.js';
import { binPath } from './helpers/cli.js';
import { captureIo } from './helpers/io.js';
// @ts-expect-error: a plain .mjs fixture of the mcp package (node runs it as a server too), no types
import { startExampleHttpServer } from '../../mcp/test/fixtures/example-server.mjs';

interface ExampleHttpServer {
  url: string;
  sessions: Map<string, unknown>;
  setDown(down: boolean): void;
  close(): Promise<void>;
}
const startExample = startExampleHttpServer as (port?: number, options?: { token?: string }) => Promise<ExampleHttpServer>;

interface Trajectory {
  steps: Array<{ toolCall: { name: string; arguments: unknown } | null; observation: { source: string; text: string } }>;
}

const TOKEN = 'mcp-test-token-8d1f7c';
let chat: ChatServer | undefined;
let example: ExampleHttpServer | undefined;
afterEach(async () => {
  vi.unstubAllEnvs();
  await chat?.close();
  await example?.close();
  chat = undefined;
  example = undefined;
});

/** A chat server answering the n-th request with `calls[n - 1]` (one episode), after `before(n)`. */
async function scriptedModel(calls: Array<[string, Record<string, unknown>]>, before: (n: number) => void = () => {}): Promise<ChatServer> {
  let n = 0;
  return startChatServer(() => {
    n += 1;
    before(n);
    const [name, args] = calls[Math.min(n, calls.length) - 1] as [string, Record<string, unknown>];
    return toolCallCompletion(name, args);
  });
}

function runYaml(dir: Record<string, string>, lines: string[]): string {
  return join(testdir({ 'llm.yaml': `scripted:\n  model: scripted-model\n  endpoint: ${chat?.url}\n  api_key: sk-none\n  max_retries: 0\n`, ...dir, 'run.yaml': lines.join('\n') }), 'run.yaml');
}

function base(repo: string, out: string): string[] {
  return [
    'base:',
    `  env: { path: ${repo}, entrypoint: python -m pytest -q . }`,
    '  llm_name: scripted',
    '  llm_config_file_path: llm.yaml',
    `  terminal: { type: local, python: ${testPython} }`,
    `  output_path: ${out}`,
    '  max_steps: 8',
    '  tools: [view, eval, rewrite]',
  ];
}

const FIX: Array<[string, Record<string, unknown>]> = [
  ['rewrite', { path: 'app.py', start: 2, new_code: '    return a + b' }],
  ['eval', {}],
];

describe('debug-gym run with mcp_servers', () => {
  it("an agent calls an SDK example server's tools (HTTP, token from the environment) and debug-gym mcp's view (stdio), then fixes the bug", async () => {
    vi.stubEnv('EXAMPLE_TOKEN', TOKEN);
    example = await startExample(0, { token: TOKEN });
    const notes = testdir({ 'NOTES.md': 'add must add, not subtract\n' });
    chat = await scriptedModel([
      ['ex_add', { a: 2, b: 3 }],
      ['ex_add', { a: 'two', b: 3 }],
      ['ex_fail', { reason: 'no disk' }],
      ['dg_view', { path: 'NOTES.md' }],
      ...FIX,
    ]);
    const out = testdir({});
    const file = runYaml({}, [
      ...base(buggyRepo(), out),
      '  mcp_servers:',
      '    example:',
      `      url: ${example.url}`,
      '      tool_prefix: ex_',
      '      tools: [add, fail]',
      '      headers: { Authorization: "Bearer ${EXAMPLE_TOKEN}" }',
      '      timeout: 30',
      '    dg:',
      `      command: ${process.execPath}`,
      // The notes folder has no tests: a trivial entrypoint keeps the server's start (its env's reset) short.
      `      args: [${binPath}, mcp, --path, ${notes}, --entrypoint, "python -c pass", --terminal, local, --tools, view]`,
      `      env: { DEBUG_GYM_PYTHON: ${testPython} }`,
      '      tool_prefix: dg_',
      '      timeout: 120',
      'debug_agent: {}',
    ]);
    const capture = captureIo();
    const results = await runCommand(file, { agent: 'debug_agent', io: capture.io, handleSigint: false });
    expect(results.tasks.map((task) => [task.status, task.steps])).toEqual([['resolved', 6]]);
    expect(capture.stderr()).toMatch(/MCP server example \(example-server 1\.2\.3, streamable_http\): ex_add, ex_fail/);
    expect(capture.stderr()).toMatch(/MCP server dg \(debug-gym [^,]+, stdio\): dg_view/);

    // The model was offered the servers' tools with their schemas, after the env's own.
    const offered = (chat.requests[0]?.body.tools ?? []) as Array<{ function: { name: string; description: string; parameters: unknown } }>;
    expect(offered.map((tool) => tool.function.name)).toEqual(['view', 'eval', 'rewrite', 'ex_add', 'ex_fail', 'dg_view']);
    expect(offered[3]?.function).toMatchObject({ description: 'Add two numbers.', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } });

    const trajectory = JSON.parse(readFileSync(results.tasks[0]?.trajectory as string, 'utf8')) as Trajectory;
    const seen = trajectory.steps.map((step) => [step.observation.source, step.observation.text]);
    expect(seen[0]).toEqual(['ex_add', '5']);
    expect(seen[1]).toEqual(['ex_add', 'Invalid arguments for tool `ex_add`: argument `a` must be a number. Usage: ex_add(a: number, b: number)']);
    expect(seen[2]).toEqual(['ex_fail', 'The MCP tool `fail` reported an error:\nfailing on purpose: no disk']);
    expect(seen[3]?.[0]).toBe('dg_view');
    expect(seen[3]?.[1]).toContain('add must add, not subtract');
    expect(seen[5]?.[0]).toBe('eval');
    // The token was read from the environment: it is in no file the run wrote.
    for (const written of [results.tasks[0]?.trajectory as string, join(results.outDir, 'results.json')]) {
      const text = readFileSync(written, 'utf8');
      expect(text).not.toContain(TOKEN);
    }
    // Every session the episode opened was closed with its env.
    expect(example.sessions.size).toBe(0);
  }, 300_000);

  it('a server that fails mid-episode: the call says why, the other tools work, the episode goes on and the server is used again once it is back', async () => {
    example = await startExample();
    const server = example;
    chat = await scriptedModel(
      [['ex_add', { a: 2, b: 3 }], ['ex_add', { a: 1, b: 1 }], ['view', { path: 'app.py' }], ['ex_add', { a: 3, b: 4 }], ...FIX],
      // Before the model's 2nd answer the server goes down (every connection cut); before its 4th it is back.
      (n) => (n === 2 ? server.setDown(true) : n === 4 ? server.setDown(false) : undefined),
    );
    const out = testdir({});
    const file = runYaml({}, [...base(buggyRepo(), out), '  mcp_servers:', `    example: { url: "${example.url}", tool_prefix: ex_, tools: [add], timeout: 30 }`, 'rewrite_agent: {}']);
    const results = await runCommand(file, { agent: 'rewrite_agent', io: captureIo().io, handleSigint: false });
    expect(results.tasks.map((task) => [task.status, task.steps])).toEqual([['resolved', 6]]);
    const trajectory = JSON.parse(readFileSync(results.tasks[0]?.trajectory as string, 'utf8')) as Trajectory;
    const seen = trajectory.steps.map((step) => [step.observation.source, step.observation.text]);
    expect(seen[0]).toEqual(['ex_add', '5']);
    expect(seen[1]?.[0]).toBe('ex_add');
    expect(seen[1]?.[1]).toMatch(/^ex_add failed: the MCP server `example` \(http:\/\/127\.0\.0\.1:\d+\/mcp\) could not be reached: fetch failed: .*Check that the server is running and that `url` is its MCP endpoint\.$/s);
    expect(seen[2]?.[1]).toContain('return a - b');
    expect(seen[3]).toEqual(['ex_add', '7']);
  });

  it('a server that cannot be reached stops the run before any episode, naming the server and the reason', async () => {
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    chat = await scriptedModel([['eval', {}]]);
    const file = runYaml({}, [...base(buggyRepo(), testdir({})), '  mcp_servers:', `    search: { url: "http://127.0.0.1:${port}/mcp" }`, 'debug_agent: {}']);
    const error = await runCommand(file, { agent: 'debug_agent', io: captureIo().io, handleSigint: false }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'DG_MCP_SERVER_UNAVAILABLE' });
    expect((error as Error).message).toMatch(new RegExp(`^the MCP server \`search\` \\(http://127\\.0\\.0\\.1:${port}/mcp\\) could not be reached: fetch failed: .*ECONNREFUSED`));
    expect(chat.requests).toHaveLength(0);
  });

  it('refuses configs that cannot work, with what to change', async () => {
    example = await startExample();
    chat = await scriptedModel([['eval', {}]]);
    const attempt = async (lines: string[]): Promise<Error> => {
      const file = runYaml({}, [...base(buggyRepo(), testdir({})), '  mcp_servers:', ...lines, 'debug_agent: {}']);
      return (await runCommand(file, { agent: 'debug_agent', io: captureIo().io, handleSigint: false }).catch((caught: unknown) => caught)) as Error;
    };
    const clash = await attempt([`    one: { url: "${example.url}", tools: [add] }`, `    two: { url: "${example.url}", tools: [add, echo] }`]);
    expect(clash).toMatchObject({ code: 'DG_CLI_CONFIG' });
    expect(clash.message).toBe('mcp_servers.two: its tool `add` would be called `add`, like the tool `add` of MCP server `one`. Set `tool_prefix` on the server (e.g. tool_prefix: two_) or leave the tool out with `tools`.');
    const typo = await attempt([`    one: { url: "${example.url}", tool_prefx: x_ }`]);
    expect(typo).toMatchObject({ code: 'DG_CLI_CONFIG' });
    expect(typo.message).toMatch(/mcp_servers\.one.*tool_prefx.*tool_prefix/);
    const unset = await attempt([`    one: { url: "${example.url}", headers: { Authorization: "Bearer \${NO_SUCH_MCP_TOKEN}" } }`]);
    expect(unset.message).toBe('mcp_servers.one.headers.Authorization uses ${NO_SUCH_MCP_TOKEN}, which is not set in the environment: export it, or write the value.');
    const filter = await attempt([`    one: { url: "${example.url}", tools: [add, serch] }`]);
    expect(filter).toMatchObject({ code: 'DG_MCP_SERVER_CONFIG' });
    expect(filter.message).toMatch(/^MCP server `one`: `tools` names `serch`, which the server .* does not have\. Its tools: add, echo, tag\.search/);
    expect(chat.requests).toHaveLength(0);
  });

  it("the mcp README's config snippet is a valid run config", () => {
    const readme = readFileSync(new URL('../../mcp/README.md', import.meta.url), 'utf8');
    const snippet = /```yaml\n(base:\n[\s\S]*?mcp_servers:[\s\S]*?)```/.exec(readme)?.[1] as string;
    expect(snippet).toBeDefined();
    const config = resolveRunConfig(parse(snippet), { agent: 'base', environmentOnly: true, baseDir: '/cfg' });
    expect(Object.keys(config.mcp_servers ?? {})).toEqual(['docs', 'local']);
    const local = mcpServerConfig('local', config.mcp_servers?.local ?? {}, { configDir: '/cfg' });
    expect(local).toMatchObject({ command: 'npx', cwd: '/cfg', env: { ACME_HOME: '/data/acme' } });
    expect(mcpServerConfig('docs', config.mcp_servers?.docs ?? {}, { environment: { DOCS_TOKEN: 't' } })).toMatchObject({ toolPrefix: 'docs_', tools: ['search', 'fetch'], headers: { Authorization: 'Bearer t' }, timeout: 120 });
  });

  it('maps a config entry to the client options: stdio runs in the config folder by default, a relative cwd is resolved from it', () => {
    expect(mcpServerConfig('s', { command: 'node', args: ['server.mjs'], tools: ['a'], tool_prefix: 'p_', timeout: 5 }, { configDir: '/cfg' })).toEqual({
      name: 's',
      command: 'node',
      args: ['server.mjs'],
      cwd: '/cfg',
      toolPrefix: 'p_',
      tools: ['a'],
      timeout: 5,
    });
    expect(mcpServerConfig('s', { command: 'node', cwd: 'srv' }, { configDir: '/cfg' }).cwd).toBe('/cfg/srv');
    expect(mcpServerConfig('h', { url: 'http://x/mcp', transport: 'sse', headers: { 'X-Key': '${K}' } }, { configDir: '/cfg', environment: { K: 'v' } })).toEqual({
      name: 'h',
      url: 'http://x/mcp',
      transport: 'sse',
      headers: { 'X-Key': 'v' },
    });
  });
});
