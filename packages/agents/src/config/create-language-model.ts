import { createAnthropicModel } from '../llm/anthropic-model.js';
import { createAzureOpenAIModel } from '../llm/azure-openai-model.js';
import { createHumanModel, type HumanModelOptions } from '../llm/human-model.js';
import { createOpenAIModel, type ChatModelOptions } from '../llm/openai-model.js';
import type { RetryOptions } from '../llm/retry.js';
import type { LanguageModel } from '../llm/types.js';
import { getLlmConfigEntry, loadLlmConfig, resolveLlmConfigPath, type LlmConfigEntry } from './llm-config.js';

export interface LoadLanguageModelOptions {
  /** The run config's `llm_config_file_path`. */
  llmConfigFilePath?: string;
  /** Generation settings from the run config's `llm:` section; they win over `generate_kwargs`. */
  generateKwargs?: Record<string, unknown>;
  /** For `human`: streams and history. */
  human?: HumanModelOptions;
  /** Override the retry policy (tests). */
  retry?: RetryOptions;
  env?: NodeJS.ProcessEnv;
}

export interface LoadedLanguageModel {
  model: LanguageModel;
  /** The llm.yaml used (null for `human`). */
  configPath: string | null;
  /** Secret strings of this model (its API key), to mask in anything written to disk. */
  secrets: string[];
  /** The endpoint requests go to (null for `human` and the provider's default). */
  endpoint: string | null;
}

/**
 * The model called `name`: `human`, or an llm.yaml entry (file found by resolveLlmConfigPath). Replays
 * are built with createReplayModel, since they need a file rather than a name.
 */
export async function loadLanguageModel(name: string, options: LoadLanguageModelOptions = {}): Promise<LoadedLanguageModel> {
  if (name === 'human') return { model: createHumanModel(options.human), configPath: null, secrets: [], endpoint: null };
  const env = options.env ?? process.env;
  const configPath = resolveLlmConfigPath({ llmConfigFilePath: options.llmConfigFilePath, env });
  const config = await loadLlmConfig(configPath, env);
  const entry = getLlmConfigEntry(config, name, configPath);
  const model = createLanguageModel(name, entry, options);
  const provider = providerOf(entry);
  const secrets = [entry.api_key, !entry.api_key ? (provider === 'openai' ? env.OPENAI_API_KEY : provider === 'anthropic' ? env.ANTHROPIC_API_KEY : undefined) : undefined];
  const endpoint = entry.endpoints?.length ? entry.endpoints.join(', ') : (entry.endpoint ?? null);
  return { model, configPath, secrets: secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length > 0), endpoint };
}

/**
 * Which backend an entry selects: `provider`, else Anthropic for an `anthropic` tag (the original's
 * selector), Azure when it has `api_version`, `scope` or an `azure` tag, else OpenAI-compatible.
 */
export function providerOf(entry: LlmConfigEntry): 'openai' | 'azure_openai' | 'anthropic' {
  if (entry.provider) return entry.provider;
  if ((entry.tags ?? []).some((tag) => /^anthropic$/i.test(tag.trim()))) return 'anthropic';
  if (entry.api_version || entry.scope || (entry.tags ?? []).some((tag) => /azure/i.test(tag))) return 'azure_openai';
  return 'openai';
}

/** Build the model for one llm.yaml entry. */
export function createLanguageModel(name: string, entry: LlmConfigEntry, options: Pick<LoadLanguageModelOptions, 'generateKwargs' | 'retry'> = {}): LanguageModel {
  const prices = {
    ...(entry.cost_per_million_input_tokens === undefined ? {} : { inputPerMillion: entry.cost_per_million_input_tokens }),
    ...(entry.cost_per_million_output_tokens === undefined ? {} : { outputPerMillion: entry.cost_per_million_output_tokens }),
    ...(entry.cost_per_million_cached_input_tokens === undefined ? {} : { cachedInputPerMillion: entry.cost_per_million_cached_input_tokens }),
  };
  const retry = { ...(entry.max_retries === undefined ? {} : { maxAttempts: entry.max_retries }), ...options.retry };
  const provider = providerOf(entry);
  const common: ChatModelOptions = {
    name,
    model: entry.model,
    ...(entry.context_limit ? { contextLimit: Math.round(entry.context_limit * 1000) } : {}),
    tokenizer: entry.tokenizer ?? entry.model,
    generateKwargs: withThinkingFlag(entry, { ...entry.generate_kwargs, ...options.generateKwargs }),
    ...(entry.ignore_kwargs ? { ignoreKwargs: entry.ignore_kwargs } : {}),
    ...(entry.system_prompt_support === undefined ? {} : { systemPromptSupport: entry.system_prompt_support }),
    ...(entry.tool_calling ? { toolCalling: entry.tool_calling } : {}),
    ...(Object.keys(prices).length > 0 ? { prices } : {}),
    retry,
    ...(entry.request_timeout ? { timeoutSeconds: entry.request_timeout } : {}),
    ...(entry.headers ? { headers: entry.headers } : {}),
    ...(entry.tags ? { tags: entry.tags } : {}),
    ...(entry.session_header === undefined ? {} : { sessionHeader: entry.session_header }),
  };
  if (provider === 'anthropic') {
    return createAnthropicModel({
      ...common,
      ...(entry.endpoint ? { endpoint: entry.endpoint } : {}),
      ...(entry.api_key ? { apiKey: entry.api_key } : {}),
      ...(entry.stream === undefined ? {} : { stream: entry.stream }),
      ...(entry.prompt_caching === undefined ? {} : { promptCaching: entry.prompt_caching }),
    });
  }
  if (provider === 'azure_openai') {
    return createAzureOpenAIModel({
      ...common,
      endpoint: entry.endpoint ?? '',
      apiVersion: entry.api_version ?? '',
      ...(entry.deployment ? { deployment: entry.deployment } : {}),
      ...(entry.api_key ? { apiKey: entry.api_key } : {}),
      ...(entry.scope ? { scope: entry.scope } : {}),
    });
  }
  return createOpenAIModel({
    ...common,
    ...(entry.endpoint ? { endpoint: entry.endpoint } : {}),
    ...(entry.endpoints ? { endpoints: entry.endpoints } : {}),
    ...(entry.api_key ? { apiKey: entry.api_key } : {}),
  });
}

const isVllm = (entry: LlmConfigEntry): boolean => (entry.tags ?? []).some((tag) => /^vllm$/i.test(tag.trim()));

/**
 * vLLM's thinking switch, as the original's HuggingFaceLLM sets it (#346): `enable_thinking` (false by
 * default for a `vllm`-tagged model) goes to `extra_body.chat_template_kwargs.<thinking_param_name>`,
 * unless generate_kwargs already set that key; a `vllm`-tagged model is also asked for a tool call
 * (`tool_choice: required`) unless generate_kwargs says otherwise.
 */
export function withThinkingFlag(entry: LlmConfigEntry, kwargs: Record<string, unknown>): Record<string, unknown> {
  const vllm = isVllm(entry);
  const enable = entry.enable_thinking ?? (vllm ? false : undefined);
  const out: Record<string, unknown> = { ...kwargs };
  if (vllm && out.tool_choice === undefined) out.tool_choice = 'required';
  if (enable === undefined) return out;
  const extraBody = isRecord(out.extra_body) ? { ...out.extra_body } : {};
  const templateKwargs = isRecord(extraBody.chat_template_kwargs) ? { ...extraBody.chat_template_kwargs } : {};
  const key = entry.thinking_param_name || 'enable_thinking';
  if (!(key in templateKwargs)) templateKwargs[key] = enable;
  extraBody.chat_template_kwargs = templateKwargs;
  out.extra_body = extraBody;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
