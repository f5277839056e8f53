import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedDataPath, testPython, testdir } from '@debug-gym/test-utils';
import { startMessagesServer, toolUse, type MessagesReply, type MessagesRequest, type MessagesServer } from '@debug-gym/test-utils/messages-server';
import { afterEach, expect, test } from 'vitest';
import { runCommand } from '../src/index.js';
import { captureIo } from './helpers/io.js';

const SECRET = 'sk-ant-cli-test-secret-42';
const FILE = 'shopping_cart_code.py';
const FIXED_GET_TOTAL = [
  '        total = sum(self.item_prices[item] * quantity * (1 - self.discounts.get(item, 0) / 100) for item, quantity in self.items.items())',
  '        return round(total, 2)',
].join('\n');

let server: MessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A scripted Claude: the n-th answer of a conversation is chosen by how many answers it already holds. */
function scriptedClaude(request: MessagesRequest): MessagesReply {
  const answered = request.body.messages.filter((message) => message.role === 'assistant').length;
  const script: MessagesReply[] = [
    { content: [{ type: 'text', text: 'Running the tests first.' }, toolUse('eval', {})], usage: { input_tokens: 1200, output_tokens: 30 } },
    { content: [toolUse('pdb', { command: `b ${FILE}:24` })], usage: { input_tokens: 300, output_tokens: 20, cache_read_input_tokens: 1200 } },
    { content: [{ type: 'text', text: 'The discount is taken once; compute the total from the items.' }, toolUse('rewrite', { path: FILE, start: 24, new_code: FIXED_GET_TOTAL })], usage: { input_tokens: 200, output_tokens: 90, cache_read_input_tokens: 1500 } },
    { content: [toolUse('eval', {})], usage: { input_tokens: 150, output_tokens: 10, cache_read_input_tokens: 1700 } },
  ];
  return script[answered] ?? { status: 500, error: { type: 'api_error', message: 'conversation went past the script' } };
}

test('debug-gym run with provider: anthropic resolves mini-nightmare shopping_cart against a local Messages API server', async () => {
  server = await startMessagesServer(scriptedClaude);
  const out = testdir({});
  const dir = testdir({
    'llm.yaml': [
      'claude:',
      '  model: claude-sonnet-4-5',
      '  provider: anthropic',
      `  endpoint: ${server.url}`,
      `  api_key: ${SECRET}`,
      '  context_limit: 200',
      '  cost_per_million_input_tokens: 3',
      '  cost_per_million_output_tokens: 15',
      '  cost_per_million_cached_input_tokens: 0.3',
      '  generate_kwargs: {max_tokens: 4096}',
    ].join('\n'),
    'run.yaml': [
      'base:',
      '  benchmark: mini_nightmare',
      `  data_path: ${sharedDataPath('mini_nightmare')}`,
      '  tasks: [shopping_cart]',
      '  llm_name: claude',
      '  llm_config_file_path: llm.yaml',
      `  terminal: { type: local, python: ${testPython} }`,
      `  output_path: ${out}`,
      '  max_steps: 8',
      'debug_agent: {}',
    ].join('\n'),
  });
  const capture = captureIo();
  const results = await runCommand(join(dir, 'run.yaml'), { io: capture.io, handleSigint: false });
  expect(results.tasks.map((task) => [task.task, task.status, task.steps])).toEqual([['shopping_cart', 'resolved', 4]]);
  expect(results).toMatchObject({ agent: 'debug_agent', model: 'claude' });
  expect(results.totals).toMatchObject({ promptTokens: 1200 + 1500 + 1700 + 1850, completionTokens: 150 });
  expect(server.requests).toHaveLength(4);
  expect(server.requests.every((request) => request.headers['x-session-id'] === 'shopping_cart' && request.body.model === 'claude-sonnet-4-5')).toBe(true);
  expect(server.requests[0]?.body.tool_choice).toEqual({ type: 'any' });
  expect(server.requests[0]?.body.system?.[0]).toMatchObject({ cache_control: { type: 'ephemeral' } });
  const trajectory = readFileSync(results.tasks[0]?.trajectory as string, 'utf8');
  expect(trajectory).not.toContain(SECRET);
  expect(JSON.parse(trajectory).llm).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5', promptCaching: true });
});

/** Issue 29's "done means": the shipped config, the original's froggy_agent, Claude through the Messages API. */
test('debug-gym run configs/mini_nightmare.yaml --agent froggy_agent with provider: anthropic resolves shopping_cart', async () => {
  const rewrite = { path: FILE, start: 24, new_code: FIXED_GET_TOTAL };
  server = await startMessagesServer((request) => {
    const answered = request.body.messages.filter((message) => message.role === 'assistant').length;
    const script: MessagesReply[] = [
      { content: [{ type: 'text', text: 'get_total applies the discount wrongly.' }, toolUse('rewrite', rewrite)], usage: { input_tokens: 900, output_tokens: 60 } },
      { content: [toolUse('eval', {})], usage: { input_tokens: 300, output_tokens: 10 } },
    ];
    return script[answered] ?? { status: 500, error: { type: 'api_error', message: 'conversation went past the script' } };
  });
  const dir = testdir({
    'llm.yaml': ['gpt-4o:', '  model: claude-sonnet-4-5', '  provider: anthropic', `  endpoint: ${server.url}`, `  api_key: ${SECRET}`, '  context_limit: 200', '  generate_kwargs: {max_tokens: 4096}'].join('\n'),
  });
  const configs = join(import.meta.dirname, '..', 'configs');
  const capture = captureIo();
  const results = await runCommand(join(configs, 'mini_nightmare.yaml'), {
    agent: 'froggy_agent',
    params: [
      `base.data_path=${sharedDataPath('mini_nightmare')}`,
      'base.tasks=[shopping_cart]',
      `base.llm_config_file_path=${join(dir, 'llm.yaml')}`,
      `base.terminal={type: local, python: ${testPython}}`,
      `base.output_path=${testdir({})}`,
      'base.fresh_grading=false',
    ],
    io: capture.io,
    handleSigint: false,
  });
  expect(results.tasks.map((task) => [task.task, task.status, task.steps])).toEqual([['shopping_cart', 'resolved', 2]]);
  expect(results.agent).toBe('froggy_agent');
  const first = server.requests[0]?.body;
  // froggy's own system prompt, sent as Anthropic's system block; its tools as Anthropic tools.
  expect(JSON.stringify(first?.system)).toContain('You are a debugging agent specialized in fixing Python programs.');
  expect((first?.tools as Array<{ name: string }>).map((tool) => tool.name).sort()).toEqual(['bash', 'eval', 'pdb', 'rewrite', 'submit', 'view']);
  expect(first?.tool_choice).toEqual({ type: 'any' });
});
