import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { LlmConfigError } from '../errors/index.js';
import type { TokenCounter } from './token-counter.js';

const loaded = new Map<string, Promise<TokenCounter>>();

/** A tokenizer setting that names a file or folder rather than a model id. */
export function looksLikePath(tokenizer: string): boolean {
  return /^(\.{1,2}[\\/]|[\\/]|~[\\/])/.test(tokenizer) || tokenizer.endsWith('.json');
}

/**
 * Where a Hugging Face tokenizer's `tokenizer.json` is on this machine, offline:
 * - a path (`./qwen/tokenizer.json`, or a folder holding one, `~` expanded) — a path that is not
 *   there is an error, since it can only be a mistake;
 * - a model id (`Qwen/Qwen3-8B`) found in the local Hugging Face cache (`$HF_HUB_CACHE`, else
 *   `$HF_HOME/hub`, else `~/.cache/huggingface/hub`), at the snapshot `refs/main` points to.
 * Undefined when a model id is not in the cache (nothing is downloaded).
 */
export function findTokenizerJson(tokenizer: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (looksLikePath(tokenizer)) {
    const path = resolve(tokenizer.replace(/^~(?=[\\/])/, env.HOME || homedir()));
    const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'tokenizer.json') : path;
    if (!existsSync(file)) {
      throw new LlmConfigError(`Tokenizer file not found: ${file}. Set \`tokenizer\` in llm.yaml to a tokenizer.json (or a folder with one), a model id in the Hugging Face cache, or a tiktoken encoding.`);
    }
    return file;
  }
  if (!/^[\w.-]+\/[\w.-]+$/.test(tokenizer)) return undefined;
  const hub = env.HF_HUB_CACHE || join(env.HF_HOME || join(env.HOME || homedir(), '.cache', 'huggingface'), 'hub');
  const repo = join(hub, `models--${tokenizer.replace('/', '--')}`);
  const snapshots = join(repo, 'snapshots');
  if (!existsSync(snapshots)) return undefined;
  const ref = join(repo, 'refs', 'main');
  const preferred = existsSync(ref) ? readFileSync(ref, 'utf8').trim() : undefined;
  const candidates = [...(preferred ? [preferred] : []), ...readdirSync(snapshots).sort()];
  return candidates.map((snapshot) => join(snapshots, snapshot, 'tokenizer.json')).find((file) => existsSync(file));
}

/**
 * A token counter from a Hugging Face `tokenizer.json` (with the `tokenizer_config.json` beside it, when
 * there is one), through `@huggingface/tokenizers` (pure JS, loaded on first use). Counts the text's
 * tokens without special tokens, as the original's HuggingFaceLLM does per message.
 */
export async function loadHfTokenCounter(file: string): Promise<TokenCounter> {
  let pending = loaded.get(file);
  if (!pending) {
    pending = (async () => {
      const { Tokenizer } = await import('@huggingface/tokenizers');
      const readJson = (path: string): unknown => {
        try {
          return JSON.parse(readFileSync(path, 'utf8'));
        } catch (cause) {
          throw new LlmConfigError(`Cannot read the tokenizer ${path}: ${(cause as Error).message}`, { cause });
        }
      };
      const configFile = join(dirname(file), 'tokenizer_config.json');
      const tokenizer = new Tokenizer(readJson(file) as object, (existsSync(configFile) ? readJson(configFile) : {}) as object);
      return { name: `hf:${file}`, exact: true, count: (text: string) => tokenizer.encode(text, { add_special_tokens: false }).ids.length };
    })();
    loaded.set(file, pending);
    pending.catch(() => loaded.delete(file));
  }
  return pending;
}
