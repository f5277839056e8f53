import { join } from 'node:path';
import { testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import { LlmConfigError, findTokenizerJson, loadTokenCounter } from '../src/index.js';

/** A small but real Hugging Face tokenizer.json: a word-level vocabulary behind the Whitespace pre-tokenizer. */
const TOKENIZER_JSON = JSON.stringify({
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [{ id: 0, content: '[UNK]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
  normalizer: null,
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: { '[UNK]': 0, def: 1, f: 2, '(': 3, x: 4, '):': 5, return: 6 }, unk_token: '[UNK]' },
});
const CODE = 'def f(x): return x'; // 7 tokens for this tokenizer; chars/4 would say 5

describe('token counts with the model\'s own tokenizer (tokenizer.json, offline)', () => {
  test('a path to tokenizer.json, or to its folder, counts with it', async () => {
    const dir = testdir({ 'qwen/tokenizer.json': TOKENIZER_JSON, 'qwen/tokenizer_config.json': '{"model_max_length": 32768}' });
    for (const tokenizer of [join(dir, 'qwen', 'tokenizer.json'), join(dir, 'qwen')]) {
      const counter = await loadTokenCounter(tokenizer);
      expect(counter).toMatchObject({ exact: true, name: `hf:${join(dir, 'qwen', 'tokenizer.json')}` });
      expect(counter.count(CODE)).toBe(7);
    }
  });

  test('a model id is looked up in the local Hugging Face cache, at the snapshot refs/main names', async () => {
    const hub = testdir({
      'models--Org--Tiny/refs/main': 'abc123\n',
      'models--Org--Tiny/snapshots/abc123/tokenizer.json': TOKENIZER_JSON,
      'models--Org--Tiny/snapshots/000old/tokenizer.json': '{"broken": ',
    });
    expect(findTokenizerJson('Org/Tiny', { HF_HUB_CACHE: hub })).toBe(join(hub, 'models--Org--Tiny', 'snapshots', 'abc123', 'tokenizer.json'));
    const counter = await loadTokenCounter('Org/Tiny', { HF_HUB_CACHE: hub });
    expect(counter.count(CODE)).toBe(7);
    // Not in the cache: nothing is downloaded, the count is the chars/4 estimate.
    const missing = await loadTokenCounter('Org/Other', { HF_HUB_CACHE: hub });
    expect(missing).toMatchObject({ name: 'estimate:chars/4', exact: false });
    // HF_HOME/hub is the default cache.
    const home = testdir({ 'hub/models--Org--Tiny/snapshots/s1/tokenizer.json': TOKENIZER_JSON });
    expect(findTokenizerJson('Org/Tiny', { HF_HOME: home })).toBe(join(home, 'hub', 'models--Org--Tiny', 'snapshots', 's1', 'tokenizer.json'));
  });

  test('a tokenizer path that is not there is a config error that says what to set; tiktoken names still work', async () => {
    const dir = testdir({});
    const error = await loadTokenCounter(join(dir, 'nope', 'tokenizer.json')).catch((caught: unknown) => caught);
    expect(LlmConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Tokenizer file not found: .*nope\/tokenizer\.json\. Set `tokenizer` in llm\.yaml/);
    const broken = testdir({ 'tokenizer.json': '{"broken": ' });
    await expect(loadTokenCounter(join(broken, 'tokenizer.json'))).rejects.toThrow(/Cannot read the tokenizer/);
    expect(await loadTokenCounter('gpt-4o')).toMatchObject({ name: 'tiktoken:o200k_base' });
  });
});
