import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { LlmConfigError } from '../errors/index.js';
import { computeCost, type PriceTable } from './cost.js';
import { EndpointPool, isEndpointFailure, type EndpointPoolOptions } from './endpoint-pool.js';
import { parseCompletion, toOpenAIMessages } from './openai-wire.js';
import { withRetries, type RetryOptions } from './retry.js';
import { rolloutTokensOf } from './rollout-tokens.js';
import { withTextToolCalling } from './text-tool-calling.js';
import { countPromptTokens, estimateTokenCounter } from './token-counter.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from './types.js';

export interface ChatModelOptions {
  /** The alias (llm.yaml key). Default: `model`. */
  name?: string;
  /** Model id sent to the endpoint (for Azure: the deployment name). */
  model: string;
  /** Context window in tokens (llm.yaml gives thousands: `context_limit: 128` → 128 000). */
  contextLimit?: number;
  /** Tokenizer for local counts: a tiktoken encoding or OpenAI model id; others are estimated as chars/4. Default: `model`. */
  tokenizer?: string;
  /** Extra request parameters (`temperature`, `max_tokens`, `reasoning_effort`, `extra_body` keys, ...). */
  generateKwargs?: Record<string, unknown>;
  /** Parameters removed from every request (some endpoints reject `temperature`, ...). */
  ignoreKwargs?: readonly string[];
  /** False sends the system prompt as a user message (models without a system role). */
  systemPromptSupport?: boolean;
  /** `native` (default) sends the tools as function-calling schemas; `text` describes them in the prompt and parses the answer. */
  toolCalling?: 'native' | 'text';
  /** Prices for `costUsd`. */
  prices?: PriceTable;
  /** Retry policy for 429/5xx/timeouts. */
  retry?: RetryOptions;
  /** Seconds one request may take. Default 300. */
  timeoutSeconds?: number;
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /** Free-form labels (llm.yaml `tags`). */
  tags?: readonly string[];
  /** The header that carries each conversation's session id (the task), for routers that hash on it. Default `X-Session-ID`; `false` sends none. */
  sessionHeader?: string | false;
}

export interface OpenAIModelOptions extends ChatModelOptions {
  /** Base URL of an OpenAI-compatible API (vLLM, Ollama, LM Studio: `http://localhost:8000/v1`). Default: OpenAI's. */
  endpoint?: string;
  /**
   * Several base URLs serving the same model (llm.yaml `endpoints`): each conversation is given the next
   * one in round-robin order and keeps it; one that does not answer is passed over (failover). Wins over `endpoint`.
   */
  endpoints?: readonly string[];
  /** Round-robin behaviour of `endpoints` (start index, cooldown); tests. */
  endpointPool?: EndpointPoolOptions;
  /** Default: `OPENAI_API_KEY`; a local endpoint without a key gets a placeholder (they ignore it). */
  apiKey?: string;
  /** A ready client (tests, custom transports). */
  client?: OpenAI;
}

/** Any OpenAI-compatible chat-completions endpoint, with native function calling from the env's tool schemas. */
export function createOpenAIModel(options: OpenAIModelOptions): LanguageModel {
  const endpoints = options.endpoints?.length ? [...options.endpoints] : options.endpoint ? [options.endpoint] : [];
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY ?? (endpoints.length > 0 ? 'not-needed' : undefined);
  if (!options.client && !apiKey) {
    throw new LlmConfigError(`Model '${options.name ?? options.model}' has no API key: set api_key in llm.yaml or OPENAI_API_KEY (or give an endpoint for a local server).`);
  }
  const clientFor = (endpoint: string | undefined): OpenAI =>
    new OpenAI({
      apiKey,
      ...(endpoint ? { baseURL: endpoint } : {}),
      maxRetries: 0,
      timeout: (options.timeoutSeconds ?? 300) * 1000,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    });
  if (options.client || endpoints.length <= 1) {
    const client = options.client ?? clientFor(endpoints[0]);
    return createChatCompletionsModel(client, options, { provider: 'openai', ...(endpoints[0] ? { endpoint: endpoints[0] } : {}) });
  }
  const pool = new EndpointPool(endpoints, options.endpointPool);
  const clients = new Map(pool.endpoints.map((endpoint) => [endpoint, clientFor(endpoint)]));
  return createChatCompletionsModel({ pool, clients }, options, { provider: 'openai', endpoints: [...pool.endpoints] });
}

/** Clients of several endpoints of one model, chosen per conversation by the pool. */
export interface PooledClients {
  pool: EndpointPool;
  clients: ReadonlyMap<string, OpenAI>;
}

/** The shared implementation of the OpenAI and Azure OpenAI backends over one SDK client. */
export function createChatCompletionsModel(client: OpenAI | PooledClients, options: ChatModelOptions, description: Record<string, unknown>): LanguageModel {
  const { body: kwargs, headers: kwargHeaders } = requestKwargs(options.generateKwargs ?? {}, options.ignoreKwargs ?? []);
  const sessionHeader = options.sessionHeader === undefined ? 'X-Session-ID' : options.sessionHeader;
  const maxOutput = [kwargs.max_tokens, kwargs.max_completion_tokens].find((value): value is number => typeof value === 'number');
  const model: LanguageModel = {
    specificationVersion: 'language-model-v1',
    name: options.name ?? options.model,
    modelId: options.model,
    ...(options.contextLimit ? { contextLimit: options.contextLimit } : {}),
    ...(maxOutput ? { maxOutputTokens: maxOutput } : {}),
    tokenizer: options.tokenizer ?? options.model,
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const body = {
        ...kwargs,
        model: options.model,
        messages: toOpenAIMessages(request.messages, { systemPromptSupport: options.systemPromptSupport !== false }),
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      } as ChatCompletionCreateParamsNonStreaming;
      // Servers refuse a tool_choice without tools (text tool calling sends none).
      if (request.tools.length === 0) delete (body as { tool_choice?: unknown }).tool_choice;
      const headers = { ...kwargHeaders, ...(sessionHeader && request.sessionId ? { [sessionHeader]: request.sessionId } : {}) };
      const requestOptions = { ...(request.signal ? { signal: request.signal } : {}), ...(Object.keys(headers).length > 0 ? { headers } : {}) };
      const once = async (sdk: OpenAI): Promise<ChatCompletion> => {
        const answer = await sdk.chat.completions.create(body, requestOptions);
        if (!Array.isArray(answer?.choices) || answer.choices.length === 0) {
          throw Object.assign(new Error('The endpoint answered without any choice.'), { status: 502 });
        }
        return answer;
      };
      const completion = await withRetries<ChatCompletion>(
        () => (client instanceof OpenAI ? once(client) : onPool(client, request.sessionId, once)),
        { ...options.retry, ...(request.signal ? { signal: request.signal } : {}) },
      );
      const parsed = parseCompletion(completion, request.tools);
      const tokens = rolloutTokensOf(completion);
      const usage = completion.usage
        ? { promptTokens: completion.usage.prompt_tokens ?? 0, completionTokens: completion.usage.completion_tokens ?? 0 }
        : {
            promptTokens: countPromptTokens(estimateTokenCounter, request.messages),
            completionTokens: estimateTokenCounter.count((parsed.content ?? '') + JSON.stringify(parsed.toolCall ?? '')),
            estimated: true,
          };
      const cachedPromptTokens = completion.usage?.prompt_tokens_details?.cached_tokens ?? 0;
      const costUsd = computeCost({ ...usage, cachedPromptTokens }, options.prices);
      return { ...parsed, usage, ...(costUsd === undefined ? {} : { costUsd }), ...(tokens ? { tokens } : {}) };
    },
    describe: () => ({
      ...description,
      name: options.name ?? options.model,
      model: options.model,
      ...(options.contextLimit ? { contextLimit: options.contextLimit } : {}),
      tokenizer: options.tokenizer ?? options.model,
      toolCalling: options.toolCalling ?? 'native',
      generateKwargs: kwargs,
      ...(options.tags ? { tags: [...options.tags] } : {}),
      ...(options.prices ? { prices: options.prices } : {}),
    }),
  };
  return options.toolCalling === 'text' ? withTextToolCalling(model) : model;
}

/**
 * One attempt over the pool: the session's endpoint first; when it does not answer, the next ones in
 * turn (each tried once). The last failure goes to the retry loop, which waits and tries again.
 */
async function onPool<T>(pooled: PooledClients, sessionId: string | undefined, call: (client: OpenAI) => Promise<T>): Promise<T> {
  let endpoint = pooled.pool.endpointFor(sessionId);
  const tried = new Set<string>();
  for (;;) {
    tried.add(endpoint);
    try {
      return await call(pooled.clients.get(endpoint) as OpenAI);
    } catch (error) {
      if (!isEndpointFailure(error)) throw error;
      endpoint = pooled.pool.failed(endpoint, sessionId);
      if (tried.has(endpoint)) throw error;
    }
  }
}

/**
 * The request parameters of `generate_kwargs`: `extra_body` (the Python client's way to send
 * server-specific fields such as vLLM's `chat_template_kwargs`) is merged into the body, `extra_headers`
 * become headers, and `ignore_kwargs` are removed.
 */
export function requestKwargs(kwargs: Record<string, unknown>, ignore: readonly string[]): { body: Record<string, unknown>; headers: Record<string, string> } {
  const { extra_body: extraBody, extra_headers: extraHeaders, ...rest } = kwargs;
  const body: Record<string, unknown> = { ...rest, ...(isRecord(extraBody) ? extraBody : {}) };
  for (const key of ignore) delete body[key];
  const headers: Record<string, string> = {};
  if (isRecord(extraHeaders)) for (const [key, value] of Object.entries(extraHeaders)) if (typeof value === 'string') headers[key] = value;
  return { body, headers };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
