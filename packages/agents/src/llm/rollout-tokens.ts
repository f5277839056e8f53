import type { RolloutTokens } from './types.js';

const TOKEN_ID_TEXT = /^token_id:(\d+)$/;

/**
 * The token ids and logprobs of a chat completion, when the server returned them:
 * - vLLM with `return_token_ids: true`: `prompt_token_ids` (top level; some servers put it on the choice)
 *   and `choices[0].token_ids` (`response_token_ids` in older patched servers);
 * - `logprobs: true`: `choices[0].logprobs.content[].logprob`, one per sampled token. With vLLM's
 *   `return_tokens_as_token_ids`, each entry's `token` reads `token_id:N`, which gives the ids too.
 * Undefined when the answer has none of these (OpenAI without logprobs, Ollama, ...).
 */
export function rolloutTokensOf(completion: unknown): RolloutTokens | undefined {
  if (!isObject(completion)) return undefined;
  const choice = Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : {};
  const promptTokenIds = intList(completion.prompt_token_ids) ?? intList(choice.prompt_token_ids);
  let completionTokenIds = intList(choice.token_ids) ?? intList(choice.response_token_ids) ?? intList(completion.response_token_ids);
  const entries = isObject(choice.logprobs) && Array.isArray(choice.logprobs.content) ? choice.logprobs.content.filter(isObject) : undefined;
  const logprobs = entries?.every((entry) => typeof entry.logprob === 'number') && entries.length > 0 ? entries.map((entry) => entry.logprob as number) : undefined;
  if (!completionTokenIds && entries && entries.length > 0) {
    const ids = entries.map((entry) => (typeof entry.token === 'string' ? TOKEN_ID_TEXT.exec(entry.token)?.[1] : undefined));
    if (ids.every((id): id is string => id !== undefined)) completionTokenIds = ids.map(Number);
  }
  const tokens: RolloutTokens = {
    ...(promptTokenIds ? { promptTokenIds } : {}),
    ...(completionTokenIds ? { completionTokenIds } : {}),
    ...(logprobs ? { logprobs } : {}),
  };
  return Object.keys(tokens).length > 0 ? tokens : undefined;
}

function intList(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((item) => Number.isInteger(item)) ? (value as number[]) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
