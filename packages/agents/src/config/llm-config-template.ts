import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { LlmConfigError } from '../errors/index.js';
import { defaultLlmConfigPath } from './llm-config.js';

/** The commented llm.yaml that `debug-gym init-llm-config` writes. Placeholders count as unset. */
export const LLM_CONFIG_TEMPLATE = `# debug-gym LLM configuration: one entry per model name (the name you pass as llm.name / --llm).
# Looked up in this order: llm_config_file_path in the run config, $LLM_CONFIG_FILE_PATH, then
# ~/.config/debug_gym/llm.yaml. Values like [YOUR_API_KEY] are placeholders and count as unset;
# \${VAR} is replaced by the environment variable VAR, so keys need not be written here.
# Secrets (api_key, tokens) are never written to logs or trajectories.
#
# Keys:
#   model            model id sent to the endpoint (Azure: the deployment name)
#   provider         openai (default), azure_openai or anthropic; an "anthropic" tag selects anthropic too
#   endpoint         base URL of an OpenAI-compatible API, the Azure resource URL, or (anthropic) a
#                    Messages API base without /v1
#   endpoints        several base URLs of one model (vLLM replicas): one per task, round-robin, with
#                    failover when one does not answer
#   api_key          API key (or \${OPENAI_API_KEY} / \${ANTHROPIC_API_KEY}); Azure: give api_key or scope
#   scope            Azure Entra ID token scope, used instead of api_key (needs @azure/identity)
#   api_version      Azure API version; setting it (or an "azure" tag) selects Azure OpenAI
#   tokenizer        for local token counts: a tiktoken encoding (o200k_base, cl100k_base), an OpenAI
#                    model id, a Hugging Face tokenizer.json (path or folder), or a model id found in the
#                    local Hugging Face cache; anything else is estimated as characters / 4
#   context_limit    context window in THOUSANDS of tokens (128 = 128 000)
#   tags             free labels; "azure openai" selects Azure, "anthropic" Anthropic; "vllm" asks
#                    for a tool call (tool_choice: required) and sends enable_thinking (default false)
#   enable_thinking  vLLM: chat_template_kwargs.<thinking_param_name> (default enable_thinking)
#   session_header   header carrying the task name on every request (default X-Session-ID), so a
#                    router keeps a task on one server; false sends none
#   stream, prompt_caching   anthropic: stream answers (default false); cache the prompt (default true)
#   generate_kwargs  extra request parameters: temperature, max_tokens, reasoning_effort, thinking,
#                    logprobs + return_token_ids (vLLM: token ids and logprobs kept per step), extra_body
#   ignore_kwargs    parameters to drop from every request
#   tool_calling     native (default) or text, for models without function calling
#   cost_per_million_input_tokens / cost_per_million_output_tokens /
#   cost_per_million_cached_input_tokens   prices in USD, for per-step cost
#   request_timeout  seconds per request (default 300); max_retries: attempts on 429/5xx (default 8)

gpt-4o:
  model: gpt-4o
  api_key: "[YOUR_API_KEY]"
  tokenizer: gpt-4o
  context_limit: 128
  tags: [gpt-4o, openai]
  generate_kwargs:
    temperature: 0.5
  cost_per_million_input_tokens: 2.5
  cost_per_million_output_tokens: 10

azure-gpt-4o:
  model: gpt-4o
  endpoint: "[YOUR_ENDPOINT]"
  api_key: "[YOUR_API_KEY]"
  # scope: "[YOUR_SCOPE]"   # e.g. https://cognitiveservices.azure.com/.default, instead of api_key
  api_version: "2024-10-21"
  tokenizer: gpt-4o
  context_limit: 128
  tags: [gpt-4o, azure openai]

# A local OpenAI-compatible server (vLLM, Ollama, LM Studio); no key needed.
qwen-local:
  model: Qwen/Qwen2.5-Coder-7B-Instruct
  endpoint: http://127.0.0.1:8000/v1
  tokenizer: Qwen/Qwen2.5-Coder-7B-Instruct
  context_limit: 32
  tags: [vllm]
  tool_calling: native
  generate_kwargs:
    temperature: 0.2

# Several vLLM replicas of one model, for training-grade rollouts (token ids and logprobs per step).
qwen3-rollouts:
  model: Qwen/Qwen3-8B
  endpoints: [http://10.0.0.11:8000/v1, http://10.0.0.12:8000/v1]
  tokenizer: Qwen/Qwen3-8B
  context_limit: 32
  tags: [vllm]
  enable_thinking: true
  generate_kwargs:
    temperature: 1.0
    logprobs: true
    return_token_ids: true

claude:
  model: claude-sonnet-4-5
  provider: anthropic
  api_key: "[YOUR_API_KEY]"
  context_limit: 200
  generate_kwargs:
    max_tokens: 8192
  cost_per_million_input_tokens: 3
  cost_per_million_output_tokens: 15
  cost_per_million_cached_input_tokens: 0.3

claude-thinking:
  model: claude-sonnet-4-5
  provider: anthropic
  api_key: "[YOUR_API_KEY]"
  context_limit: 200
  stream: true
  generate_kwargs:
    max_tokens: 20000
    thinking: {type: enabled, budget_tokens: 16000}
`;

/**
 * Write the commented template to `<dir>/llm.yaml` (default `~/.config/debug_gym/llm.yaml`). Refuses to
 * replace an existing file unless `force`. Returns the path written.
 */
export async function writeLlmConfigTemplate(dir?: string, options: { force?: boolean } = {}): Promise<string> {
  const path = dir ? join(resolve(dir), 'llm.yaml') : defaultLlmConfigPath();
  if (existsSync(path) && !options.force) {
    throw new LlmConfigError(`${path} already exists; not overwriting it. Use --force to replace it with the template.`);
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, LLM_CONFIG_TEMPLATE);
  return path;
}
