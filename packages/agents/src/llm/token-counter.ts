import type { TiktokenBPE } from 'js-tiktoken/lite';
import { findTokenizerJson, loadHfTokenCounter } from './hf-tokenizer.js';
import type { ChatMessage } from './types.js';

/** Counts tokens of text for history trimming. `exact` is false for the chars/4 estimate. */
export interface TokenCounter {
  readonly name: string;
  readonly exact: boolean;
  count(text: string): number;
}

type Encoding = 'o200k_base' | 'cl100k_base' | 'p50k_base' | 'r50k_base' | 'gpt2';
const ENCODINGS: readonly Encoding[] = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base', 'gpt2'];
const loaded = new Map<Encoding, Promise<TokenCounter>>();

/** Per message framing overhead the chat format adds (role, separators), as OpenAI documents it. */
const MESSAGE_OVERHEAD = 4;

/**
 * The estimate used when no tokenizer is known for a model (vLLM, Ollama and other open models):
 * one token per four characters, rounded up. It errs long for code and short for CJK text; the
 * context-length retry covers the rest.
 */
export const estimateTokenCounter: TokenCounter = {
  name: 'estimate:chars/4',
  exact: false,
  count: (text) => Math.ceil(text.length / 4),
};

/** Which tiktoken encoding a tokenizer name (an encoding or an OpenAI model id) means, if any. */
export async function encodingFor(tokenizer: string | undefined): Promise<Encoding | undefined> {
  if (!tokenizer) return undefined;
  const name = tokenizer.trim().toLowerCase();
  if ((ENCODINGS as readonly string[]).includes(name)) return name as Encoding;
  const bare = name.replace(/^(openai|azure)\//, '');
  const { getEncodingNameForModel } = await import('js-tiktoken/lite');
  try {
    return getEncodingNameForModel(bare as Parameters<typeof getEncodingNameForModel>[0]) as Encoding;
  } catch {
    if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o|gpt-oss)/.test(bare)) return 'o200k_base';
    if (/^(gpt-4|gpt-3\.5)/.test(bare)) return 'cl100k_base';
    return undefined;
  }
}

/**
 * A token counter for `tokenizer`: exact (js-tiktoken, loaded on first use) for OpenAI models and
 * tiktoken encoding names; exact for a Hugging Face `tokenizer.json` (a path, or a model id in the local
 * Hugging Face cache: see findTokenizerJson); else the chars/4 estimate.
 */
export async function loadTokenCounter(tokenizer: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<TokenCounter> {
  const encoding = await encodingFor(tokenizer);
  if (!encoding) {
    const file = tokenizer ? findTokenizerJson(tokenizer, env) : undefined;
    return file ? loadHfTokenCounter(file) : estimateTokenCounter;
  }
  let pending = loaded.get(encoding);
  if (!pending) {
    pending = (async () => {
      const [{ Tiktoken }, ranks] = await Promise.all([import('js-tiktoken/lite'), importRanks(encoding)]);
      const tiktoken = new Tiktoken(ranks);
      return { name: `tiktoken:${encoding}`, exact: true, count: (text: string) => tiktoken.encode(text, [], []).length };
    })();
    loaded.set(encoding, pending);
  }
  return pending;
}

async function importRanks(encoding: Encoding): Promise<TiktokenBPE> {
  switch (encoding) {
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    case 'r50k_base':
      return (await import('js-tiktoken/ranks/r50k_base')).default;
    default:
      return (await import('js-tiktoken/ranks/gpt2')).default;
  }
}

const cache = new WeakMap<TokenCounter, WeakMap<ChatMessage, number>>();

/** Tokens one message takes in a prompt (content, tool calls, framing). Cached per message object. */
export function countMessageTokens(counter: TokenCounter, message: ChatMessage): number {
  let perCounter = cache.get(counter);
  if (!perCounter) {
    perCounter = new WeakMap();
    cache.set(counter, perCounter);
  }
  const known = perCounter.get(message);
  if (known !== undefined) return known;
  let text = message.content ?? '';
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) {
      text += call.name + (typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments));
    }
  }
  const tokens = counter.count(text) + MESSAGE_OVERHEAD;
  perCounter.set(message, tokens);
  return tokens;
}

/** Tokens a whole prompt takes. */
export function countPromptTokens(counter: TokenCounter, messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, message) => sum + countMessageTokens(counter, message), 0);
}
