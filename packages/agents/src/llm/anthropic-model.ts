import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { ContextLengthExceededError, LlmConfigError, LlmRequestError } from '../errors/index.js';
import { parseAnthropicMessage, toAnthropicPrompt, toAnthropicTools } from './anthropic-wire.js';
import { computeCost } from './cost.js';
import { requestKwargs, type ChatModelOptions } from './openai-model.js';
import { classifyFailure, describeError, retryAfterMs } from './retry.js';
import { withTextToolCalling } from './text-tool-calling.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from './types.js';

export interface AnthropicModelOptions extends ChatModelOptions {
  /** Base URL of the Messages API, without `/v1` (a proxy, a gateway, a test server). Default: Anthropic's. */
  endpoint?: string;
  /** Default: `ANTHROPIC_API_KEY`; a custom `endpoint` without a key gets a placeholder. */
  apiKey?: string;
  /** Stream the answer (server-sent events) and assemble it, instead of one JSON response. Default false. */
  stream?: boolean;
  /** Mark the system prompt and the conversation's end as cacheable (`cache_control: ephemeral`). Default true. */
  promptCaching?: boolean;
  /** A ready client (tests, custom transports). */
  client?: Anthropic;
}

/** Answer length when `generate_kwargs` sets no `max_tokens` (the Messages API requires one). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

/**
 * Claude through the official `@anthropic-ai/sdk` (Messages API): native tool use from the env's
 * schemas, with `tool_choice: any` (a call is required) unless extended thinking is on (the API refuses
 * both together, as the original notes); thinking blocks kept in the trajectory and sent back with their
 * signatures; prompt caching; retries of 408/409/429/5xx/529 and dropped connections by the SDK itself
 * (its backoff, `retry-after`), each announced through `retry.onRetry`.
 */
export function createAnthropicModel(options: AnthropicModelOptions): LanguageModel {
  const name = options.name ?? options.model;
  const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY ?? (options.endpoint ? 'not-needed' : undefined);
  if (!options.client && !apiKey) {
    throw new LlmConfigError(`Model '${name}' has no API key: set api_key in llm.yaml or ANTHROPIC_API_KEY.`);
  }
  const maxRetries = Math.max(0, (options.retry?.maxAttempts ?? 8) - 1);
  const onRetry = options.retry?.onRetry;
  const client =
    options.client ??
    new Anthropic({
      apiKey: apiKey as string,
      ...(options.endpoint ? { baseURL: options.endpoint } : {}),
      maxRetries,
      timeout: (options.timeoutSeconds ?? 300) * 1000,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
      ...(onRetry ? { fetch: announcingFetch(maxRetries, onRetry) } : {}),
    });
  const { body: kwargs, headers: kwargHeaders } = requestKwargs(options.generateKwargs ?? {}, options.ignoreKwargs ?? []);
  const stream = options.stream ?? kwargs.stream === true;
  delete kwargs.stream;
  const maxTokens = typeof kwargs.max_tokens === 'number' ? kwargs.max_tokens : ANTHROPIC_DEFAULT_MAX_TOKENS;
  const cache = options.promptCaching !== false;
  const sessionHeader = options.sessionHeader === undefined ? 'X-Session-ID' : options.sessionHeader;
  const model: LanguageModel = {
    specificationVersion: 'language-model-v1',
    name,
    modelId: options.model,
    ...(options.contextLimit ? { contextLimit: options.contextLimit } : {}),
    maxOutputTokens: maxTokens,
    tokenizer: options.tokenizer ?? options.model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const prompt = toAnthropicPrompt(request.messages, { systemPromptSupport: options.systemPromptSupport !== false, cache });
      const body = {
        ...kwargs,
        model: options.model,
        max_tokens: maxTokens,
        ...prompt,
        ...(request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
        ...(request.tools.length > 0 && kwargs.thinking === undefined && kwargs.tool_choice === undefined ? { tool_choice: { type: 'any' } } : {}),
      } as MessageCreateParamsNonStreaming;
      const headers = { ...kwargHeaders, ...(sessionHeader && request.sessionId ? { [sessionHeader]: request.sessionId } : {}) };
      const requestOptions = { ...(request.signal ? { signal: request.signal } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
      let message: Message;
      try {
        message = stream ? await client.messages.stream(body, requestOptions).finalMessage() : await client.messages.create(body, requestOptions);
      } catch (error) {
        throw toModelError(error, maxRetries);
      }
      const parsed = parseAnthropicMessage(message);
      const usage = message.usage;
      const cached = usage.cache_read_input_tokens ?? 0;
      const promptTokens = usage.input_tokens + cached + (usage.cache_creation_input_tokens ?? 0);
      const tokenUsage = { promptTokens, completionTokens: usage.output_tokens };
      const costUsd = computeCost({ ...tokenUsage, cachedPromptTokens: cached }, options.prices);
      return { ...parsed, usage: tokenUsage, ...(costUsd === undefined ? {} : { costUsd }) };
    },
    describe: () => ({
      provider: 'anthropic',
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      name,
      model: options.model,
      ...(options.contextLimit ? { contextLimit: options.contextLimit } : {}),
      tokenizer: options.tokenizer ?? options.model,
      toolCalling: options.toolCalling ?? 'native',
      stream,
      promptCaching: cache,
      generateKwargs: { ...kwargs, max_tokens: maxTokens },
      ...(options.tags ? { tags: [...options.tags] } : {}),
      ...(options.prices ? { prices: options.prices } : {}),
    }),
  };
  return options.toolCalling === 'text' ? withTextToolCalling(model) : model;
}

/** An SDK failure as our errors: a too-long prompt, a stop, or a request that failed for good (after the SDK's retries). */
function toModelError(error: unknown, maxRetries: number): unknown {
  const kind = classifyFailure(error);
  if (kind === 'abort') return error;
  if (kind === 'context') return new ContextLengthExceededError(describeError(error), { cause: error });
  const status = (error as { status?: unknown }).status;
  const attempts = kind === 'retry' ? maxRetries + 1 : 1;
  const suffix = kind === 'retry' && maxRetries > 0 ? ` (gave up after ${attempts} attempts)` : '';
  return new LlmRequestError(`${describeError(error)}${suffix}`, { ...(typeof status === 'number' ? { status } : {}), attempts }, { cause: error });
}

const RETRIED = (status: number): boolean => status === 408 || status === 409 || status === 429 || status >= 500;

/**
 * `fetch` that tells `onRetry` when the SDK is about to retry (a retryable status while retries remain,
 * as the SDK counts them in `X-Stainless-Retry-Count`), so a run never waits on the API in silence.
 */
function announcingFetch(maxRetries: number, onRetry: NonNullable<NonNullable<ChatModelOptions['retry']>['onRetry']>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (RETRIED(response.status) && response.headers.get('x-should-retry') !== 'false') {
      const retryCount = Number(new Headers(init?.headers).get('x-stainless-retry-count') ?? '0');
      if (retryCount < maxRetries) {
        const asked = retryAfterMs({ headers: response.headers });
        const delayMs = asked !== undefined && asked < 60_000 ? asked : Math.min(500 * 2 ** retryCount, 8000);
        onRetry({ attempt: retryCount + 1, delayMs, reason: `${response.status} ${response.statusText}`.trim() });
      }
    }
    return response;
  };
}
