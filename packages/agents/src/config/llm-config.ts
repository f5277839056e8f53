import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { LlmConfigError } from '../errors/index.js';

/** One model in `llm.yaml` (keys as in the original debug-gym, plus price and tool-calling settings). */
export interface LlmConfigEntry {
  /** Model id (Azure: the deployment, unless `deployment` is set). */
  model: string;
  /** Base URL: OpenAI-compatible `/v1` URL, the Azure resource endpoint, or the Messages API base (Anthropic, without `/v1`). */
  endpoint?: string;
  /** Several OpenAI-compatible base URLs serving this model: round-robin per task, failover (the original's #345). Wins over `endpoint`. */
  endpoints?: string[];
  api_key?: string;
  /** Entra ID token scope (Azure), instead of `api_key`. */
  scope?: string;
  /** Azure API version; its presence (or an `azure` tag) selects Azure OpenAI. */
  api_version?: string;
  deployment?: string;
  /** `openai`, `azure_openai` or `anthropic`; default from `tags` (`azure openai`, `anthropic`) and `api_version`. */
  provider?: 'openai' | 'azure_openai' | 'anthropic';
  /** For local token counts: a tiktoken encoding or OpenAI model id (else chars/4). Default: `model`. */
  tokenizer?: string;
  /** Context window in thousands of tokens (the original's unit): `128` = 128 000 tokens. */
  context_limit?: number;
  tags?: string[];
  generate_kwargs?: Record<string, unknown>;
  ignore_kwargs?: string[];
  system_prompt_support?: boolean;
  /** `native` function calling (default) or the `text` format for models without it. */
  tool_calling?: 'native' | 'text';
  cost_per_million_input_tokens?: number;
  cost_per_million_output_tokens?: number;
  cost_per_million_cached_input_tokens?: number;
  /** Seconds one request may take (default 300). */
  request_timeout?: number;
  /** Attempts per request on 429/5xx/timeouts (default 8). */
  max_retries?: number;
  /** Extra HTTP headers. */
  headers?: Record<string, string>;
  /** vLLM: sent as `chat_template_kwargs.<thinking_param_name>` (the original's #346); with a `vllm` tag it defaults to false, as there. */
  enable_thinking?: boolean;
  /** The chat template's thinking switch (`enable_thinking`; Kimi-K2: `thinking`). */
  thinking_param_name?: string;
  /** Anthropic: stream the answer (server-sent events). */
  stream?: boolean;
  /** Anthropic: mark the system prompt and the conversation's end for prompt caching (default true). */
  prompt_caching?: boolean;
  /** Header carrying the task name on every request, for routers that hash on it (default `X-Session-ID`, the original's #351); `false`: none. */
  session_header?: string | false;
}

export type LlmConfig = Record<string, LlmConfigEntry>;

/** `~/.config/debug_gym/llm.yaml`. */
export function defaultLlmConfigPath(home: string = homedir()): string {
  return join(home, '.config', 'debug_gym', 'llm.yaml');
}

/** Which llm.yaml to read: the run config's `llm_config_file_path`, else `LLM_CONFIG_FILE_PATH`, else the default. */
export function resolveLlmConfigPath(options: { llmConfigFilePath?: string | undefined; env?: NodeJS.ProcessEnv } = {}): string {
  const env = options.env ?? process.env;
  const chosen = options.llmConfigFilePath || env.LLM_CONFIG_FILE_PATH || defaultLlmConfigPath(env.HOME || homedir());
  return resolve(chosen);
}

/** Read and check llm.yaml. */
export async function loadLlmConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<LlmConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new LlmConfigError(`Cannot find llm config file: ${path}. Use \`debug-gym init-llm-config\` to create one and edit it.`, { cause });
  }
  return parseLlmConfig(text, path, env);
}

const PLACEHOLDER = /^\[YOUR_[A-Z0-9_]+\]$/;
const STRING_KEYS = ['model', 'endpoint', 'api_key', 'scope', 'api_version', 'deployment', 'tokenizer', 'thinking_param_name'] as const;
const BOOLEAN_KEYS = ['enable_thinking', 'stream', 'prompt_caching', 'system_prompt_support'] as const;
const PROVIDERS = ['openai', 'azure_openai', 'anthropic'];
const NUMBER_KEYS = ['context_limit', 'cost_per_million_input_tokens', 'cost_per_million_output_tokens', 'cost_per_million_cached_input_tokens', 'request_timeout', 'max_retries'] as const;

/**
 * Parse llm.yaml text: a mapping of model name → settings. Placeholders such as `[YOUR_API_KEY]` count
 * as unset; `${VAR}` in a string setting is replaced by that environment variable.
 */
export function parseLlmConfig(text: string, path = 'llm.yaml', env: NodeJS.ProcessEnv = process.env): LlmConfig {
  let document: unknown;
  try {
    document = parse(text);
  } catch (cause) {
    throw new LlmConfigError(`${path} is not valid YAML: ${(cause as Error).message}`, { cause });
  }
  if (document === null || document === undefined) return {};
  if (typeof document !== 'object' || Array.isArray(document)) throw new LlmConfigError(`${path} must map model names to their settings.`);
  const config: LlmConfig = {};
  for (const [name, raw] of Object.entries(document as Record<string, unknown>)) {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new LlmConfigError(`${path}: '${name}' must be a mapping of settings (model, endpoint, api_key, ...).`);
    const entry: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof value === 'string' && PLACEHOLDER.test(value.trim())) continue;
      entry[key] = typeof value === 'string' ? expandEnv(value, env) : value;
      if (entry[key] === '') delete entry[key];
    }
    const bad = (key: string, what: string): never => {
      throw new LlmConfigError(`${path}: '${name}.${key}' must be ${what}.`);
    };
    if (typeof entry.model !== 'string') bad('model', 'a string (the model id)');
    for (const key of STRING_KEYS) if (entry[key] !== undefined && typeof entry[key] !== 'string') bad(key, 'a string');
    for (const key of NUMBER_KEYS) if (entry[key] !== undefined && (typeof entry[key] !== 'number' || (entry[key] as number) < 0)) bad(key, 'a non-negative number');
    for (const key of BOOLEAN_KEYS) if (entry[key] !== undefined && typeof entry[key] !== 'boolean') bad(key, 'true or false');
    if (entry.endpoints !== undefined && !(Array.isArray(entry.endpoints) && entry.endpoints.length > 0 && entry.endpoints.every((url) => typeof url === 'string' && url.length > 0))) {
      bad('endpoints', 'a non-empty list of base URLs');
    }
    if (entry.session_header !== undefined && entry.session_header !== false && !(typeof entry.session_header === 'string' && /^[A-Za-z0-9-]+$/.test(entry.session_header))) {
      bad('session_header', 'a header name or false');
    }
    if (entry.tags !== undefined && !(Array.isArray(entry.tags) && entry.tags.every((tag) => typeof tag === 'string'))) bad('tags', 'a list of strings');
    if (entry.ignore_kwargs !== undefined && !(Array.isArray(entry.ignore_kwargs) && entry.ignore_kwargs.every((k) => typeof k === 'string'))) bad('ignore_kwargs', 'a list of strings');
    for (const key of ['generate_kwargs', 'headers']) {
      if (entry[key] !== undefined && (typeof entry[key] !== 'object' || entry[key] === null || Array.isArray(entry[key]))) bad(key, 'a mapping');
    }
    if (entry.tool_calling !== undefined && entry.tool_calling !== 'native' && entry.tool_calling !== 'text') bad('tool_calling', "'native' or 'text'");
    if (entry.provider !== undefined && !PROVIDERS.includes(entry.provider as string)) bad('provider', "'openai', 'azure_openai' or 'anthropic'");
    config[name] = entry as unknown as LlmConfigEntry;
  }
  return config;
}

/** The entry for `name`, or an error that lists the configured names. */
export function getLlmConfigEntry(config: LlmConfig, name: string, path = 'llm.yaml'): LlmConfigEntry {
  const entry = Object.hasOwn(config, name) ? config[name] : undefined;
  if (entry) return entry;
  const names = Object.keys(config);
  throw new LlmConfigError(
    `Model '${name}' not found in llm config registry ${path}. ${names.length > 0 ? `Configured models: ${names.join(', ')}.` : 'It configures no model yet.'} Add it, or use \`human\`.`,
  );
}

function expandEnv(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => env[variable] ?? '');
}
