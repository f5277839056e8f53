import type { ToolSchema } from '@debug-gym/core';
import { startMessagesServer, toolUse, type MessagesScript, type MessagesServer } from '@debug-gym/test-utils/messages-server';
import { afterEach, describe, expect, test } from 'vitest';
import {
  ContextLengthExceededError,
  LlmRequestError,
  createAnthropicModel,
  createLanguageModel,
  parseLlmConfig,
  providerOf,
  type AnthropicModelOptions,
  type ChatMessage,
} from '../src/index.js';

const tools: ToolSchema[] = [
  {
    type: 'function',
    function: { name: 'view', description: 'Show a file.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
  { type: 'function', function: { name: 'eval', description: 'Run the tests.', parameters: { type: 'object', properties: {} } } },
];
const messages: ChatMessage[] = [
  { role: 'system', content: 'You debug.' },
  { role: 'user', content: 'Fix it.' },
];

let server: MessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(script: MessagesScript[], options: Partial<AnthropicModelOptions> = {}) {
  server = await startMessagesServer(script);
  const retries: Array<{ attempt: number; delayMs: number; reason: string }> = [];
  const model = createAnthropicModel({
    name: 'claude',
    model: 'claude-test',
    endpoint: server.url,
    apiKey: 'sk-ant-test-secret',
    retry: { maxAttempts: 3, onRetry: (event) => void retries.push(event) },
    ...options,
  });
  return { model, server, retries };
}

describe('createAnthropicModel against a local Messages API server, through @anthropic-ai/sdk', () => {
  for (const stream of [false, true]) {
    test(`${stream ? 'streaming' : 'one JSON answer'}: sends tools, tool_choice any, cached system prompt, session header; returns the call, text and usage`, async () => {
      const call = toolUse('view', { path: 'app.py' });
      const { model, server } = await modelFor(
        [{ content: [{ type: 'text', text: 'Looking at app.py first.' }, call], usage: { input_tokens: 50, output_tokens: 12, cache_read_input_tokens: 200, cache_creation_input_tokens: 30 } }],
        { stream, prices: { inputPerMillion: 3, outputPerMillion: 15, cachedInputPerMillion: 0.3 } },
      );
      const result = await model.generate({ messages, tools, sessionId: 'shopping_cart' });
      expect(result.toolCall).toEqual({ id: call.type === 'tool_use' ? call.id : '', name: 'view', arguments: { path: 'app.py' } });
      expect(result.content).toBe('Looking at app.py first.');
      expect(result.reasoning).toBeNull();
      // Prompt tokens count the cached ones too (ATIF's definition); the cached ones are priced as such.
      expect(result.usage).toEqual({ promptTokens: 280, completionTokens: 12 });
      expect(result.costUsd).toBeCloseTo((80 * 3 + 200 * 0.3 + 12 * 15) / 1e6, 10);
      const request = server.requests[0];
      expect(request?.url).toBe('/v1/messages');
      // SDK 1.x authenticates with a bearer token (0.x sent x-api-key).
      expect(request?.headers['x-api-key'] ?? request?.headers.authorization).toMatch(/^(Bearer )?sk-ant-test-secret$/);
      expect(request?.headers['anthropic-version']).toBeTruthy();
      expect(request?.headers['x-session-id']).toBe('shopping_cart');
      expect(request?.body.stream ?? false).toBe(stream);
      expect(request?.body).toMatchObject({ model: 'claude-test', max_tokens: 8192, tool_choice: { type: 'any' } });
      expect(request?.body.system).toEqual([{ type: 'text', text: 'You debug.', cache_control: { type: 'ephemeral' } }]);
      expect(request?.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Fix it.', cache_control: { type: 'ephemeral' } }] }]);
      expect(request?.body.tools).toEqual([
        { name: 'view', description: 'Show a file.', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
        { name: 'eval', description: 'Run the tests.', input_schema: { type: 'object', properties: {} } },
      ]);
    });

    test(`${stream ? 'streaming' : 'one JSON answer'}: extended thinking comes back as reasoning and as signed blocks; no forced tool choice`, async () => {
      const { model, server } = await modelFor(
        [
          {
            content: [
              { type: 'thinking', thinking: 'The discount is applied once.', signature: 'sig-abc==' },
              { type: 'redacted_thinking', data: 'ENCRYPTED' },
              toolUse('eval', {}),
            ],
          },
        ],
        { stream, generateKwargs: { max_tokens: 20000, thinking: { type: 'enabled', budget_tokens: 16000 } } },
      );
      const result = await model.generate({ messages, tools });
      expect(result.reasoning).toBe('The discount is applied once.');
      expect(result.thinking).toEqual([
        { type: 'thinking', thinking: 'The discount is applied once.', signature: 'sig-abc==' },
        { type: 'redacted_thinking', data: 'ENCRYPTED' },
      ]);
      expect(result.toolCall?.name).toBe('eval');
      expect(server.requests[0]?.body.tool_choice).toBeUndefined();
      expect(server.requests[0]?.body).toMatchObject({ max_tokens: 20000, thinking: { type: 'enabled', budget_tokens: 16000 } });
    });
  }

  test('sends the history as the API wants it: signed thinking first, tool_use, tool_result in a user turn, neighbouring user turns joined', async () => {
    const { model, server } = await modelFor([{ content: [toolUse('eval', {})] }]);
    await model.generate({
      messages: [
        ...messages,
        {
          role: 'assistant',
          content: 'Let me look.',
          reasoning: 'hidden',
          thinking: [{ type: 'thinking', thinking: 'hidden', signature: 'sig-1' }],
          toolCalls: [{ id: 'toolu_a', name: 'view', arguments: { path: 'a.py' } }],
        },
        { role: 'tool', toolCallId: 'toolu_a', name: 'view', content: '1 x = 1' },
        { role: 'assistant', content: null },
        { role: 'user', content: 'No tool call was made.' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'toolu_b', name: 'view', arguments: '{"path": "b.py",}' }] },
        { role: 'tool', toolCallId: 'toolu_b', name: 'view', content: 'bad' },
        { role: 'user', content: 'Note.' },
      ],
      tools,
    });
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Fix it.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hidden', signature: 'sig-1' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'toolu_a', name: 'view', input: { path: 'a.py' } },
        ],
      },
      // The empty answer is left out (as the original does), so the tool result and the note share a turn.
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '1 x = 1' },
          { type: 'text', text: 'No tool call was made.' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_b', name: 'view', input: { path: 'b.py' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'bad' },
          { type: 'text', text: 'Note.', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  test('the SDK retries 429 and 529 itself, honouring retry-after-ms; each wait is announced', async () => {
    const { model, server, retries } = await modelFor([
      { status: 429, error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' }, headers: { 'retry-after-ms': '20' } },
      { status: 529, error: { type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '10' } },
      { content: [toolUse('eval', {})] },
    ]);
    const result = await model.generate({ messages, tools });
    expect(result.toolCall?.name).toBe('eval');
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((request) => request.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    expect(retries).toEqual([
      { attempt: 1, delayMs: 20, reason: expect.stringMatching(/^429/) },
      { attempt: 2, delayMs: 10, reason: expect.stringMatching(/^529/) },
    ]);
  });

  test('gives up after max_retries attempts with an LlmRequestError carrying the status', async () => {
    const overloaded = { status: 529, error: { type: 'overloaded_error', message: 'Overloaded' }, headers: { 'retry-after-ms': '1' } };
    const { model, server, retries } = await modelFor([overloaded, overloaded, overloaded, overloaded]);
    const error = await model.generate({ messages, tools }).catch((caught: unknown) => caught);
    expect(LlmRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 529, attempts: 3, code: 'DG_LLM_REQUEST_FAILED' });
    expect((error as Error).message).toMatch(/Overloaded.*gave up after 3 attempts/);
    expect(server.requests).toHaveLength(3);
    expect(retries).toHaveLength(2);
  });

  test('a too-long prompt is a ContextLengthExceededError at once; an auth error is not retried', async () => {
    const { model, server } = await modelFor([
      { status: 400, error: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      { status: 401, error: { type: 'authentication_error', message: 'invalid x-api-key' } },
    ]);
    const tooLong = await model.generate({ messages, tools }).catch((caught: unknown) => caught);
    expect(ContextLengthExceededError.isInstance(tooLong)).toBe(true);
    const denied = await model.generate({ messages, tools }).catch((caught: unknown) => caught);
    expect(denied).toMatchObject({ code: 'DG_LLM_REQUEST_FAILED', status: 401, attempts: 1 });
    expect(server.requests).toHaveLength(2);
  });

  test('prompt_caching: false sends no cache_control; system_prompt_support: false sends the system prompt as user text', async () => {
    const { model, server } = await modelFor([{ content: [toolUse('eval', {})] }], { promptCaching: false, systemPromptSupport: false });
    await model.generate({ messages, tools });
    expect(server.requests[0]?.body.system).toBeUndefined();
    expect(server.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'You debug.' },
          { type: 'text', text: 'Fix it.' },
        ],
      },
    ]);
  });

  test('llm.yaml: provider anthropic (or the original\'s `anthropic` tag) builds this backend; describe() has no key', async () => {
    server = await startMessagesServer([{ content: [toolUse('eval', {})], usage: { input_tokens: 7, output_tokens: 3 } }]);
    const config = parseLlmConfig(
      [
        'claude:',
        '  model: claude-sonnet-4-5',
        '  provider: anthropic',
        `  endpoint: ${server.url}`,
        '  api_key: sk-ant-from-yaml',
        '  stream: true',
        '  context_limit: 200',
        '  generate_kwargs: {max_tokens: 4096, temperature: 0.5}',
        'claude-tagged:',
        '  model: claude-3-7-sonnet-20250219',
        '  tags: [anthropic, claude]',
        '  api_key: x',
      ].join('\n'),
    );
    expect(providerOf(config['claude-tagged']!)).toBe('anthropic');
    const model = createLanguageModel('claude', config.claude!);
    const result = await model.generate({ messages, tools });
    expect(result.usage).toEqual({ promptTokens: 7, completionTokens: 3 });
    expect(server.requests[0]?.body).toMatchObject({ model: 'claude-sonnet-4-5', max_tokens: 4096, temperature: 0.5, stream: true });
    expect(server.requests[0]?.headers['x-api-key'] ?? server.requests[0]?.headers.authorization).toMatch(/^(Bearer )?sk-ant-from-yaml$/);
    expect(model.describe()).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5', stream: true, promptCaching: true, contextLimit: 200_000 });
    expect(JSON.stringify(model.describe())).not.toContain('sk-ant');
    expect(() => parseLlmConfig('x:\n  model: m\n  provider: claude\n')).toThrow(/'openai', 'azure_openai' or 'anthropic'/);
  });
});
