import { readFileSync } from 'node:fs';
import { createTestEnv, sharedDataPath, testPython, testdir, type Backend } from '@debug-gym/test-utils';
import { startMessagesServer, toolUse, type MessagesServer } from '@debug-gym/test-utils/messages-server';
import { LocalTerminal } from '@debug-gym/terminal';
import evalTool from '@debug-gym/tool-eval';
import listdirTool from '@debug-gym/tool-listdir';
import pdbTool from '@debug-gym/tool-pdb';
import rewriteTool from '@debug-gym/tool-rewrite';
import viewTool from '@debug-gym/tool-view';
import { afterEach, describe, expect, test } from 'vitest';
import { createAgent, createAnthropicModel, createOpenAIModel, readTrajectory } from '../src/index.js';
import { startChatServer, toolCallReply, type ChatServer, type RecordedRequest, type Reply } from './helpers/chat-server.js';

const local: Backend = { name: 'local', create: () => new LocalTerminal({ python: testPython }) };
const plugins = { pdb: pdbTool, rewrite: rewriteTool, view: viewTool, eval: evalTool, listdir: listdirTool } as const;
const FILE = 'shopping_cart_code.py';
const FIXED_GET_TOTAL = [
  '        total = sum(self.item_prices[item] * quantity * (1 - self.discounts.get(item, 0) / 100) for item, quantity in self.items.items())',
  '        return round(total, 2)',
].join('\n');

let messagesServer: MessagesServer | undefined;
let chatServer: ChatServer | undefined;
afterEach(async () => {
  await messagesServer?.close();
  await chatServer?.close();
  messagesServer = chatServer = undefined;
});

function shoppingCartEnv() {
  return createTestEnv(local, {
    path: sharedDataPath('mini_nightmare', 'shopping_cart'),
    entrypoint: 'python -m pytest --tb=no -s test.py',
    tools: Object.values(plugins),
  });
}

describe('models end to end on mini-nightmare shopping_cart', () => {
  test('debug_agent with provider anthropic (streaming, extended thinking) resolves the task against a local Messages API server', async () => {
    const signatures = ['sig-1', 'sig-2', 'sig-3', 'sig-4'];
    messagesServer = await startMessagesServer([
      { content: [{ type: 'thinking', thinking: 'Run the tests first.', signature: signatures[0]! }, toolUse('eval', {})] },
      { status: 529, error: { type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '5' } },
      { content: [{ type: 'thinking', thinking: 'Stop in get_total.', signature: signatures[1]! }, toolUse('pdb', { command: `b ${FILE}:24` })] },
      { content: [{ type: 'thinking', thinking: 'Discounts are applied once.', signature: signatures[2]! }, { type: 'text', text: 'Computing the total from the items fixes it.' }, toolUse('rewrite', { path: FILE, start: 24, new_code: FIXED_GET_TOTAL })] },
      { content: [{ type: 'thinking', thinking: 'Check.', signature: signatures[3]! }, toolUse('eval', {})], usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 900 } },
    ]);
    const llm = createAnthropicModel({
      name: 'claude',
      model: 'claude-sonnet-test',
      endpoint: messagesServer.url,
      apiKey: 'sk-ant-e2e-secret',
      stream: true,
      generateKwargs: { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } },
      retry: { maxAttempts: 3 },
    });
    const agent = createAgent('debug_agent', { llm, maxSteps: 10 });
    const env = shoppingCartEnv();
    const out = testdir({});
    let outcome;
    try {
      outcome = await agent.run(env, { task: 'shopping_cart', outputDir: out, knownSecrets: ['sk-ant-e2e-secret'] });
    } finally {
      await env.close();
    }
    expect(outcome.result).toMatchObject({ status: 'resolved', success: true, steps: 4, rewrites: 1, score: 1 });
    expect(messagesServer.requests).toHaveLength(5);
    const steps = outcome.trajectory.steps;
    expect(steps.map((step) => step.toolCall?.name)).toEqual(['eval', 'pdb', 'rewrite', 'eval']);
    expect(steps[0]?.observation.text).toMatch(/1 failed/);
    expect(steps.map((step) => step.response.reasoning)).toEqual(['Run the tests first.', 'Stop in get_total.', 'Discounts are applied once.', 'Check.']);
    expect(steps[2]?.response.thinking).toEqual([{ type: 'thinking', thinking: 'Discounts are applied once.', signature: 'sig-3' }]);
    expect(steps[3]?.usage).toEqual({ promptTokens: 910, completionTokens: 5 });
    // Every request after the first sends the earlier answers back with their signed thinking blocks and tool results.
    const last = messagesServer.requests[4]!.body;
    const sentSignatures = last.messages.flatMap((message) => message.content.filter((block) => block.type === 'thinking').map((block) => block.signature));
    expect(sentSignatures).toEqual(['sig-1', 'sig-2', 'sig-3']);
    expect(last.messages.at(-1)?.content[0]).toMatchObject({ type: 'tool_result' });
    expect(last.messages.every((message, index) => message.role === (index % 2 === 0 ? 'user' : 'assistant'))).toBe(true);
    expect(messagesServer.requests.every((request) => request.headers['x-session-id'] === 'shopping_cart' && request.body.stream === true)).toBe(true);
    // The written trajectory keeps the thinking blocks and no key.
    const text = readFileSync(outcome.trajectoryPath as string, 'utf8');
    expect(text).not.toContain('sk-ant-e2e-secret');
    const saved = await readTrajectory(outcome.trajectoryPath as string);
    expect(saved.steps[1]?.response.thinking?.[0]).toMatchObject({ signature: 'sig-2' });
    expect(saved.llm).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-test', stream: true });
  });

  test('a rollout through an OpenAI-compatible server keeps each step\'s prompt and completion token ids and logprobs', async () => {
    const calls = [
      ['eval', {}],
      ['rewrite', { path: FILE, start: 24, new_code: FIXED_GET_TOTAL }],
      ['eval', {}],
    ] as const;
    // The server tokenizes the prompt as one id per message and answers with ids and logprobs that depend on the step.
    const reply = (request: RecordedRequest, index: number): Reply => {
      const [name, args] = calls[index] ?? ['eval', {}];
      const answer = toolCallReply(name, args, { usage: [request.body.messages?.length ?? 0, 3] });
      const body = answer.body as { choices: Array<Record<string, unknown>> } & Record<string, unknown>;
      body.prompt_token_ids = (request.body.messages ?? []).map((_, position) => 1000 + position);
      body.choices[0]!.token_ids = [index * 10 + 1, index * 10 + 2, index * 10 + 3];
      body.choices[0]!.logprobs = { content: [-0.1, -0.2, -0.3].map((logprob) => ({ token: 'x', logprob: logprob * (index + 1), top_logprobs: [] })) };
      return answer;
    };
    chatServer = await startChatServer([reply, reply, reply]);
    const llm = createOpenAIModel({ name: 'qwen-vllm', model: 'Qwen/Qwen3-8B', endpoint: chatServer.url, generateKwargs: { logprobs: true, return_token_ids: true } });
    const agent = createAgent('rewrite_agent', { llm, maxSteps: 5 });
    const env = shoppingCartEnv();
    const out = testdir({});
    let outcome;
    try {
      outcome = await agent.run(env, { task: 'shopping_cart', outputDir: out });
    } finally {
      await env.close();
    }
    expect(outcome.result).toMatchObject({ status: 'resolved', steps: 3 });
    const saved = await readTrajectory(outcome.trajectoryPath as string);
    expect(saved.steps.map((step) => step.tokens)).toEqual([
      { promptTokenIds: [1000, 1001], completionTokenIds: [1, 2, 3], logprobs: [-0.1, -0.2, -0.3] },
      { promptTokenIds: [1000, 1001, 1002, 1003], completionTokenIds: [11, 12, 13], logprobs: [-0.2, -0.4, -0.6].map((value) => expect.closeTo(value, 12)) },
      { promptTokenIds: [1000, 1001, 1002, 1003, 1004, 1005], completionTokenIds: [21, 22, 23], logprobs: [-0.3, -0.6, -0.9].map((value) => expect.closeTo(value, 12)) },
    ]);
    expect(chatServer.requests.every((request) => request.body.return_token_ids === true && request.body.logprobs === true && request.headers['x-session-id'] === 'shopping_cart')).toBe(true);
  });
});
