import { createServer } from 'node:net';
import type { ToolSchema } from '@debug-gym/core';
import { afterEach, describe, expect, test } from 'vitest';
import { EndpointPool, createLanguageModel, createOpenAIModel, parseLlmConfig, rolloutTokensOf, withThinkingFlag, type ChatMessage } from '../src/index.js';
import { startChatServer, toolCallReply, type ChatServer, type Reply } from './helpers/chat-server.js';

const tools: ToolSchema[] = [{ type: 'function', function: { name: 'eval', description: 'Run the tests.', parameters: { type: 'object', properties: {} } } }];
const messages: ChatMessage[] = [
  { role: 'system', content: 'You debug.' },
  { role: 'user', content: 'Fix it.' },
];

const servers: ChatServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(reply: Reply | ((index: number) => Reply), count = 20): Promise<ChatServer> {
  const server = await startChatServer(Array.from({ length: count }, (_, index) => (typeof reply === 'function' ? reply(index) : reply)));
  servers.push(server);
  return server;
}

/** A port nothing listens on. */
async function deadEndpoint(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}/v1`;
}

/** A chat completion as vLLM returns it with `return_token_ids: true` and `logprobs: true`. */
function vllmReply(completionIds: number[], logprobs: number[], promptIds: number[]): Reply {
  const reply = toolCallReply('eval', {}, { usage: [promptIds.length, completionIds.length] });
  const body = reply.body as { choices: Array<Record<string, unknown>> } & Record<string, unknown>;
  body.prompt_token_ids = promptIds;
  body.choices[0]!.token_ids = completionIds;
  body.choices[0]!.logprobs = { content: logprobs.map((logprob, index) => ({ token: `t${index}`, logprob, bytes: null, top_logprobs: [] })) };
  return reply;
}

describe('vLLM and other OpenAI-compatible servers, as the original supports them', () => {
  test('token ids and logprobs of the answer are returned (vLLM return_token_ids + logprobs)', async () => {
    const server = await serve(vllmReply([11, 12, 13], [-0.5, -0.25, -0.125], [1, 2, 3, 4, 5]));
    const model = createOpenAIModel({ model: 'qwen', endpoint: server.url, generateKwargs: { logprobs: true, return_token_ids: true } });
    const result = await model.generate({ messages, tools });
    expect(result.tokens).toEqual({ promptTokenIds: [1, 2, 3, 4, 5], completionTokenIds: [11, 12, 13], logprobs: [-0.5, -0.25, -0.125] });
    expect(server.requests[0]?.body).toMatchObject({ logprobs: true, return_token_ids: true });
  });

  test('rolloutTokensOf: ids from return_tokens_as_token_ids, nothing when the server sent nothing', () => {
    const entries = [12, 7].map((id, index) => ({ token: `token_id:${id}`, logprob: -index }));
    expect(rolloutTokensOf({ choices: [{ logprobs: { content: entries } }] })).toEqual({ completionTokenIds: [12, 7], logprobs: [-0, -1] });
    expect(rolloutTokensOf({ choices: [{ message: { content: 'x' } }] })).toBeUndefined();
    expect(rolloutTokensOf({ choices: [{ prompt_token_ids: [1], token_ids: [2] }] })).toEqual({ promptTokenIds: [1], completionTokenIds: [2] });
  });

  test('each request carries the task as X-Session-ID (#351); session_header renames it or turns it off', async () => {
    const server = await serve(toolCallReply('eval', {}));
    await createOpenAIModel({ model: 'm', endpoint: server.url }).generate({ messages, tools, sessionId: 'shopping_cart' });
    await createOpenAIModel({ model: 'm', endpoint: server.url, sessionHeader: 'X-Task' }).generate({ messages, tools, sessionId: 'config' });
    await createOpenAIModel({ model: 'm', endpoint: server.url, sessionHeader: false }).generate({ messages, tools, sessionId: 'other' });
    expect(server.requests.map((request) => [request.headers['x-session-id'], request.headers['x-task']])).toEqual([
      ['shopping_cart', undefined],
      [undefined, 'config'],
      [undefined, undefined],
    ]);
  });

  test('several endpoints (#345): one per task in round-robin order, kept for the whole task (prefix cache)', async () => {
    const [a, b] = [await serve(toolCallReply('eval', {})), await serve(toolCallReply('eval', {}))];
    const model = createOpenAIModel({ model: 'm', endpoints: [a!.url, b!.url], endpointPool: { start: 0 } });
    for (const task of ['t1', 't2', 't1', 't3', 't2', 't1']) await model.generate({ messages, tools, sessionId: task });
    expect(a!.requests.map((request) => request.headers['x-session-id'])).toEqual(['t1', 't1', 't3', 't1']);
    expect(b!.requests.map((request) => request.headers['x-session-id'])).toEqual(['t2', 't2']);
    expect(model.describe()).toMatchObject({ endpoints: [a!.url, b!.url] });
  });

  test('failover: a task whose endpoint stops answering moves to the next one at once, and new tasks skip it', async () => {
    const dead = await deadEndpoint();
    const alive = await serve(toolCallReply('eval', {}));
    const sleeps: number[] = [];
    const model = createOpenAIModel({ model: 'm', endpoints: [dead, alive.url], endpointPool: { start: 0 }, retry: { sleep: async (ms) => void sleeps.push(ms) } });
    const first = await model.generate({ messages, tools, sessionId: 't1' });
    expect(first.toolCall?.name).toBe('eval');
    await model.generate({ messages, tools, sessionId: 't2' });
    await model.generate({ messages, tools, sessionId: 't1' });
    expect(alive.requests.map((request) => request.headers['x-session-id'])).toEqual(['t1', 't2', 't1']);
    expect(sleeps).toEqual([]); // moved over without a backoff wait
  });

  test('a 503 from one replica fails over too; a 400 does not (it would fail anywhere)', async () => {
    const busy = await serve({ status: 503, body: { error: { message: 'Service Unavailable' } } });
    const good = await serve(toolCallReply('eval', {}));
    const model = createOpenAIModel({ model: 'm', endpoints: [busy.url, good.url], endpointPool: { start: 0 }, retry: { maxAttempts: 1 } });
    expect((await model.generate({ messages, tools, sessionId: 'x' })).toolCall?.name).toBe('eval');
    const refusing = await serve({ status: 400, body: { error: { message: 'bad request' } } });
    const other = await serve(toolCallReply('eval', {}));
    const strict = createOpenAIModel({ model: 'm', endpoints: [refusing.url, other.url], endpointPool: { start: 0 }, retry: { maxAttempts: 1 } });
    await expect(strict.generate({ messages, tools, sessionId: 'y' })).rejects.toMatchObject({ status: 400 });
    expect(other.requests).toHaveLength(0);
  });

  test('EndpointPool: every endpoint down gives the one that comes back first; cooldown ends', () => {
    let now = 0;
    const pool = new EndpointPool(['a', 'b'], { start: 1, cooldownMs: 100, now: () => now });
    expect(pool.endpointFor('s')).toBe('b');
    expect(pool.failed('b', 's')).toBe('a');
    now = 10;
    expect(pool.failed('a', 's')).toBe('b'); // both down: b's cooldown ends first
    now = 200;
    expect([pool.endpointFor('new'), pool.endpointFor('newer'), pool.endpointFor('new')]).toEqual(['b', 'a', 'b']);
  });

  test('enable_thinking reaches the chat template (#346), thinking_param_name renames it; a vllm tag defaults it to false and requires a call', async () => {
    const server = await serve(toolCallReply('eval', {}));
    const config = parseLlmConfig(
      [
        'qwen3:',
        '  model: Qwen/Qwen3-8B',
        `  endpoint: ${server.url}`,
        '  tags: [qwen3, vllm]',
        'kimi:',
        '  model: moonshotai/Kimi-K2',
        `  endpoints: [${server.url}]`,
        '  enable_thinking: true',
        '  thinking_param_name: thinking',
        '  generate_kwargs: {extra_body: {top_k: 20}, extra_headers: {X-Trace: abc}}',
      ].join('\n'),
    );
    await createLanguageModel('qwen3', config.qwen3!).generate({ messages, tools });
    await createLanguageModel('kimi', config.kimi!).generate({ messages, tools });
    expect(server.requests[0]?.body).toMatchObject({ chat_template_kwargs: { enable_thinking: false }, tool_choice: 'required' });
    expect(server.requests[0]?.body.extra_body).toBeUndefined();
    expect(server.requests[1]?.body).toMatchObject({ chat_template_kwargs: { thinking: true }, top_k: 20 });
    expect(server.requests[1]?.body.tool_choice).toBeUndefined();
    expect(server.requests[1]?.headers['x-trace']).toBe('abc');
    // An explicit chat_template_kwargs value wins, as in the original.
    const entry = { model: 'm', enable_thinking: true, tags: ['vllm'] };
    expect(withThinkingFlag(entry, { extra_body: { chat_template_kwargs: { enable_thinking: false } } })).toEqual({
      tool_choice: 'required',
      extra_body: { chat_template_kwargs: { enable_thinking: false } },
    });
    expect(() => parseLlmConfig('x:\n  model: m\n  endpoints: []\n')).toThrow(/endpoints' must be a non-empty list/);
    expect(() => parseLlmConfig('x:\n  model: m\n  enable_thinking: "yes"\n')).toThrow(/enable_thinking' must be true or false/);
  });
});
