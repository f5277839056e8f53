import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import {
  LLM_CONFIG_TEMPLATE,
  LlmConfigError,
  createLanguageModel,
  defaultLlmConfigPath,
  getLlmConfigEntry,
  loadLanguageModel,
  loadLlmConfig,
  parseLlmConfig,
  providerOf,
  resolveLlmConfigPath,
  writeLlmConfigTemplate,
} from '../src/index.js';

describe('llm.yaml lookup order', () => {
  test.each([
    { case: 'the run config path wins', run: '/run/llm.yaml', env: { LLM_CONFIG_FILE_PATH: '/env/llm.yaml', HOME: '/home/u' }, path: '/run/llm.yaml' },
    { case: 'then LLM_CONFIG_FILE_PATH', run: undefined, env: { LLM_CONFIG_FILE_PATH: '/env/llm.yaml', HOME: '/home/u' }, path: '/env/llm.yaml' },
    { case: 'then the default under HOME', run: undefined, env: { HOME: '/home/u' }, path: '/home/u/.config/debug_gym/llm.yaml' },
    { case: 'an empty run path does not count', run: '', env: { HOME: '/home/u' }, path: '/home/u/.config/debug_gym/llm.yaml' },
  ])('$case', ({ run, env, path }) => {
    expect(resolveLlmConfigPath({ llmConfigFilePath: run, env })).toBe(path);
  });

  test('the default path is ~/.config/debug_gym/llm.yaml', () => {
    expect(defaultLlmConfigPath('/home/x')).toBe('/home/x/.config/debug_gym/llm.yaml');
  });
});

describe('parseLlmConfig', () => {
  test('reads every documented key and treats placeholders as unset', () => {
    const config = parseLlmConfig(
      [
        'gpt-4o:',
        '  model: gpt-4o',
        '  endpoint: "[YOUR_ENDPOINT]"',
        '  api_key: "[YOUR_API_KEY]"',
        '  tokenizer: gpt-4o',
        '  context_limit: 128',
        '  tags: [gpt-4o, openai]',
        '  generate_kwargs: {temperature: 0.5}',
        '  cost_per_million_input_tokens: 2.5',
      ].join('\n'),
    );
    expect(config).toEqual({
      'gpt-4o': { model: 'gpt-4o', tokenizer: 'gpt-4o', context_limit: 128, tags: ['gpt-4o', 'openai'], generate_kwargs: { temperature: 0.5 }, cost_per_million_input_tokens: 2.5 },
    });
  });

  test('replaces ${VAR} by the environment', () => {
    const config = parseLlmConfig('m:\n  model: x\n  api_key: ${MY_KEY}\n  endpoint: ${UNSET_VAR}\n', 'llm.yaml', { MY_KEY: 'sk-from-env' });
    expect(config.m).toEqual({ model: 'x', api_key: 'sk-from-env' });
  });

  test('the shipped template parses, and its placeholders count as unset', () => {
    const config = parseLlmConfig(LLM_CONFIG_TEMPLATE);
    expect(Object.keys(config)).toEqual(['gpt-4o', 'azure-gpt-4o', 'qwen-local', 'qwen3-rollouts', 'claude', 'claude-thinking']);
    expect(config['gpt-4o']?.api_key).toBeUndefined();
    expect(['claude', 'claude-thinking', 'qwen3-rollouts'].map((name) => providerOf(config[name]!))).toEqual(['anthropic', 'anthropic', 'openai']);
    expect(config['azure-gpt-4o']).not.toHaveProperty('endpoint');
  });

  test.each([
    { case: 'invalid YAML', text: 'a: [', message: /is not valid YAML/ },
    { case: 'a list at the top', text: '- a\n- b', message: /must map model names/ },
    { case: 'an entry that is not a mapping', text: 'a: 3', message: /'a' must be a mapping/ },
    { case: 'a missing model', text: 'a:\n  endpoint: http://x', message: /'a\.model' must be a string/ },
    { case: 'a context limit as text', text: 'a:\n  model: m\n  context_limit: big', message: /'a\.context_limit' must be a non-negative number/ },
    { case: 'tags as text', text: 'a:\n  model: m\n  tags: openai', message: /'a\.tags' must be a list of strings/ },
    { case: 'generate_kwargs as a list', text: 'a:\n  model: m\n  generate_kwargs: [1]', message: /'a\.generate_kwargs' must be a mapping/ },
    { case: 'an unknown tool_calling', text: 'a:\n  model: m\n  tool_calling: xml', message: /'a\.tool_calling' must be 'native' or 'text'/ },
    { case: 'an unknown provider', text: 'a:\n  model: m\n  provider: gemini', message: /'a\.provider' must be 'openai', 'azure_openai' or 'anthropic'/ },
  ])('rejects $case', ({ text, message }) => {
    expect(() => parseLlmConfig(text, 'llm.yaml')).toThrow(message);
  });

  test('an empty file configures no model', () => {
    expect(parseLlmConfig('')).toEqual({});
  });
});

describe('getLlmConfigEntry', () => {
  test('an unknown name lists the configured ones', () => {
    expect(() => getLlmConfigEntry({ a: { model: 'a' }, b: { model: 'b' } }, 'c', '/x/llm.yaml')).toThrow(
      "Model 'c' not found in llm config registry /x/llm.yaml. Configured models: a, b.",
    );
  });

  test('inherited object keys are not model names', () => {
    expect(() => getLlmConfigEntry({}, 'constructor')).toThrow(LlmConfigError);
  });
});

describe('providerOf', () => {
  test.each([
    { entry: { model: 'm' }, provider: 'openai' },
    { entry: { model: 'm', api_version: '2024-10-21' }, provider: 'azure_openai' },
    { entry: { model: 'm', tags: ['gpt-4o', 'azure openai'] }, provider: 'azure_openai' },
    { entry: { model: 'm', scope: 'https://cognitiveservices.azure.com/.default' }, provider: 'azure_openai' },
    { entry: { model: 'm', api_version: 'v', provider: 'openai' as const }, provider: 'openai' },
  ])('$entry → $provider', ({ entry, provider }) => {
    expect(providerOf(entry)).toBe(provider);
  });
});

describe('writeLlmConfigTemplate', () => {
  test('writes the commented template and refuses to overwrite without force', async () => {
    const dir = testdir({});
    const path = await writeLlmConfigTemplate(join(dir, 'conf'));
    expect(path).toBe(join(dir, 'conf', 'llm.yaml'));
    expect(readFileSync(path, 'utf8')).toBe(LLM_CONFIG_TEMPLATE);
    writeFileSync(path, 'mine: {model: x}\n');
    await expect(writeLlmConfigTemplate(join(dir, 'conf'))).rejects.toThrow(/already exists; not overwriting it\. Use --force/);
    expect(readFileSync(path, 'utf8')).toBe('mine: {model: x}\n');
    await writeLlmConfigTemplate(join(dir, 'conf'), { force: true });
    expect(readFileSync(path, 'utf8')).toBe(LLM_CONFIG_TEMPLATE);
  });
});

describe('loadLanguageModel', () => {
  const yaml = [
    'local:',
    '  model: qwen',
    '  endpoint: http://127.0.0.1:9/v1',
    '  api_key: sk-local-secret-123',
    '  context_limit: 32',
    '  tokenizer: cl100k_base',
    '  generate_kwargs: {temperature: 0.2, max_tokens: 1000}',
    '  cost_per_million_input_tokens: 1',
    '  cost_per_million_output_tokens: 2',
    '  tool_calling: text',
    'azure:',
    '  model: gpt-4o',
    '  endpoint: https://example.openai.azure.com',
    '  api_key: azure-secret-456',
    '  api_version: "2024-10-21"',
  ].join('\n');

  test('builds the named model from the file the lookup order finds, and reports its secrets', async () => {
    const dir = testdir({ 'llm.yaml': yaml });
    const loaded = await loadLanguageModel('local', { env: { LLM_CONFIG_FILE_PATH: join(dir, 'llm.yaml') }, generateKwargs: { temperature: 0 } });
    expect(loaded.configPath).toBe(join(dir, 'llm.yaml'));
    expect(loaded.secrets).toEqual(['sk-local-secret-123']);
    expect(loaded.model.contextLimit).toBe(32_000);
    expect(loaded.model.maxOutputTokens).toBe(1000);
    expect(loaded.model.tokenizer).toBe('cl100k_base');
    expect(loaded.model.describe()).toMatchObject({
      provider: 'openai',
      name: 'local',
      toolCalling: 'text',
      generateKwargs: { temperature: 0, max_tokens: 1000 },
      prices: { inputPerMillion: 1, outputPerMillion: 2 },
    });
    expect(JSON.stringify(loaded.model.describe())).not.toContain('sk-local-secret-123');
  });

  test('selects Azure OpenAI from api_version', async () => {
    const dir = testdir({ 'llm.yaml': yaml });
    const loaded = await loadLanguageModel('azure', { llmConfigFilePath: join(dir, 'llm.yaml') });
    expect(loaded.model.describe()).toMatchObject({ provider: 'azure_openai', auth: 'api_key', deployment: 'gpt-4o', apiVersion: '2024-10-21' });
  });

  test('`human` needs no config file', async () => {
    const loaded = await loadLanguageModel('human', { env: { LLM_CONFIG_FILE_PATH: '/nonexistent/llm.yaml' } });
    expect(loaded.model.name).toBe('human');
    expect(loaded.configPath).toBeNull();
  });

  test('a missing file says how to create one', async () => {
    await expect(loadLlmConfig('/nonexistent/llm.yaml')).rejects.toThrow(
      'Cannot find llm config file: /nonexistent/llm.yaml. Use `debug-gym init-llm-config` to create one and edit it.',
    );
  });

  test('an Azure entry without endpoint, version or credentials is refused', () => {
    expect(() => createLanguageModel('a', { model: 'm', api_version: 'v', api_key: 'k' })).toThrow(/needs an endpoint/);
    expect(() => createLanguageModel('a', { model: 'm', provider: 'azure_openai', endpoint: 'https://x', api_key: 'k' })).toThrow(/needs api_version/);
    expect(() => createLanguageModel('a', { model: 'm', endpoint: 'https://x', api_version: 'v' })).toThrow(/needs api_key, or scope/);
  });
});
