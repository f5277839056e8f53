import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import { applyOverride, closestKey, ConfigError, deepMerge, loadRunConfig, parseOverride, resolveRunConfig } from '../src/index.js';

const configsDir = new URL('../configs/', import.meta.url).pathname;

const document = {
  base: { llm_name: 'gpt-4o', max_steps: 50, env: { path: '/repo', run_timeout: 20 }, terminal: { type: 'local' }, tools: ['view', 'eval'] },
  debug_agent: { tools: ['pdb', 'view', 'eval'], env: { entrypoint: 'python -m pytest test.py' } },
  rewrite_agent: { max_steps: 10 },
  debug_5_agent: { n_rewrites_before_pdb: 2 },
  my_agent: { agent_type: 'rewrite_agent' },
};

function resolveWith(agent: string, overrides: string[] = [], doc: unknown = document) {
  return resolveRunConfig(doc, { agent, overrides, baseDir: '/configs', cwd: '/work' });
}

function problem(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('-p overrides', () => {
  test.each([
    ['base.max_steps=30', ['base', 'max_steps'], 30],
    ['debug_agent.llm_name=human', ['debug_agent', 'llm_name'], 'human'],
    ['base.tools=[view, eval]', ['base', 'tools'], ['view', 'eval']],
    ['base.env.terminate_on_resolved=false', ['base', 'env', 'terminate_on_resolved'], false],
    ['base.llm_name=', ['base', 'llm_name'], null],
    ['base.llm_name=null', ['base', 'llm_name'], null],
    ['base.system_prompt=a=b', ['base', 'system_prompt'], 'a=b'],
    ['base.system_prompt=: not yaml: [', ['base', 'system_prompt'], ': not yaml: ['],
  ])('%s sets %j to %j', (text, path, value) => {
    expect(parseOverride(text)).toEqual({ path, value, text });
  });

  test.each(['max_steps', '=3', 'base..max_steps=3'])('%s is refused with an example of the right form', (text) => {
    expect(problem(() => parseOverride(text))).toMatch(/key\.path=value|dotted key path/);
  });

  test('applying an override creates missing maps and refuses to descend into a scalar', () => {
    const target: Record<string, unknown> = { base: { max_steps: 3 } };
    applyOverride(target, ['base', 'env', 'path'], '/x', 'base.env.path=/x');
    expect(target).toEqual({ base: { max_steps: 3, env: { path: '/x' } } });
    expect(problem(() => applyOverride(target, ['base', 'max_steps', 'x'], 1, 'base.max_steps.x=1'))).toContain('`base.max_steps` is 3, not a mapping');
  });

  test('deep merge merges maps and replaces lists and scalars', () => {
    expect(deepMerge({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, d: { e: 1 } })).toEqual({ a: { b: 1, c: [3] }, d: { e: 1 } });
  });
});

describe('closest key suggestions', () => {
  test.each([
    ['max_step', 'max_steps'],
    ['llm', 'llm_name'],
    ['MAX_STEPS', 'max_steps'],
    ['termnal', 'terminal'],
    ['zzzzzz', undefined],
  ])('%s → %s', (key, expected) => {
    expect(closestKey(key, ['max_steps', 'llm_name', 'terminal', 'tools', 'env'])).toBe(expected);
  });

  test('no candidates, no suggestion', () => {
    expect(closestKey('x', [])).toBeUndefined();
  });
});

describe('resolving a run configuration', () => {
  test('the agent section is merged over base: maps merge, lists are replaced, the section name is the agent type', () => {
    const config = resolveWith('debug_agent');
    expect(config).toMatchObject({
      agent_type: 'debug_agent',
      llm_name: 'gpt-4o',
      max_steps: 50,
      tools: ['pdb', 'view', 'eval'],
      env: { path: '/repo', run_timeout: 20, entrypoint: 'python -m pytest test.py' },
      output_path: 'exps',
      run_id: 'debug_agent_gpt-4o',
      tasks: 'all',
      workers: 1,
    });
  });

  test('a custom section names its agent with agent_type', () => {
    expect(resolveWith('my_agent').agent_type).toBe('rewrite_agent');
  });

  test('-p overrides a section key, a base key, or (without a section) the merged result', () => {
    expect(resolveWith('rewrite_agent', ['rewrite_agent.max_steps=7']).max_steps).toBe(7);
    expect(resolveWith('debug_agent', ['base.max_steps=30']).max_steps).toBe(30);
    expect(resolveWith('rewrite_agent', ['max_steps=5']).max_steps).toBe(5);
    expect(resolveWith('debug_agent', ['debug_agent.llm_name=human']).llm_name).toBe('human');
    expect(resolveWith('debug_agent', ['base.env.run_timeout=5']).env.run_timeout).toBe(5);
  });

  test('-p may add a section for the selected agent and set a built-in agent that the file lacks', () => {
    const config = resolveWith('debug_agent', ['debug_agent.max_steps=3'], { base: { llm_name: 'x', env: { path: '/r' } } });
    expect(config).toMatchObject({ agent_type: 'debug_agent', max_steps: 3 });
  });

  test('relative paths in the file resolve from its folder, those in -p from the working directory; output_path stays relative', () => {
    const config = resolveWith('debug_agent', ['base.replay=run/traj.json'], {
      base: { llm_name: 'x', env: { path: 'repo' }, data_path: '../data', output_path: 'exps/a' },
    });
    expect(config.env.path).toBe('/configs/repo');
    expect(config.data_path).toBe('/data');
    expect(config.replay).toBe('/work/run/traj.json');
    expect(config.output_path).toBe('exps/a');
  });

  test.each([
    [['base.max_step=30'], 'Unknown key `base.max_step`; did you mean `base.max_steps`?'],
    [['debug_agent.llm=human'], 'Unknown key `debug_agent.llm`; did you mean `debug_agent.llm_name`?'],
    [['base.env.entry_point=x'], 'Unknown key `base.env.entry_point`; did you mean `base.env.entrypoint`?'],
    [['base.terminal.imag=x'], 'Unknown key `base.terminal.imag`; did you mean `base.terminal.image`?'],
    [['max_step=3'], 'unknown section or key `max_step`; did you mean `max_steps`?'],
    [['debg_agent.llm_name=human'], 'unknown section or key `debg_agent`; did you mean `debug_agent`?'],
    [['base.max_steps=thirty'], '`base.max_steps` must be a number (got "thirty")'],
    [['base.max_steps=0'], '`base.max_steps` must be at least 1 (got 0)'],
    [['base.max_steps=2.5'], '`base.max_steps` must be a whole number (got 2.5)'],
    [['base.terminal.type=podman'], "`base.terminal.type` must be 'auto', 'local', 'bubblewrap', 'docker' or 'kubernetes' (got \"podman\")"],
    [['base.agent_type=froggy'], '`base.agent_type` must be one of debug_agent, rewrite_agent, debug_5_agent, froggy_agent, simple_agent, solution'],
    [['base.tasks=3'], "`base.tasks` must be 'all', a task id, or a list of task ids (got 3)"],
    [['base.tools=view'], '`base.tools` must be a list of tool names'],
    [['base=3'], 'give a key inside the section'],
  ])('%j is an error: %s', (overrides, message) => {
    expect(problem(() => resolveWith('debug_agent', overrides))).toContain(message);
  });

  test('every problem is listed at once', () => {
    const message = problem(() => resolveWith('debug_agent', ['base.max_step=1', 'base.workers=0']));
    expect(message).toContain('has 2 problems');
    expect(message).toContain('base.max_step');
    expect(message).toContain('base.workers');
  });

  test('a key without a close match lists the valid keys of its map', () => {
    expect(problem(() => resolveWith('debug_agent', ['base.env.qqqqqqqqqq=1']))).toMatch(/Unknown key `base\.env\.qqqqqqqqqq`\. Valid keys of `base\.env`: path, task_name, entrypoint/);
  });

  test.each([
    ['debug_agnt', 'has no section `debug_agnt`; did you mean `debug_agent`?'],
    ['nothing_like_it', 'has no section `nothing_like_it`. Sections: debug_agent, rewrite_agent, debug_5_agent, my_agent'],
  ])('--agent %s is an error: %s', (agent, message) => {
    expect(problem(() => resolveWith(agent))).toContain(message);
  });

  test('a section that is not an agent needs agent_type', () => {
    expect(problem(() => resolveWith('custom', [], { base: { llm_name: 'x' }, custom: { max_steps: 2 } }))).toContain('Section `custom` needs `agent_type`');
  });

  test('an LLM agent needs a model, the solution agent does not', () => {
    expect(problem(() => resolveWith('debug_agent', [], { base: {} }))).toContain('Set `llm_name` for debug_agent');
    expect(resolveWith('solution', [], { base: { benchmark: 'aider' } })).toMatchObject({ agent_type: 'solution', run_id: 'solution' });
    expect(resolveWith('debug_agent', [], { base: { replay: '/t/traj.json' } }).run_id).toBe('debug_agent_replay-traj');
  });

  test.each([
    [[1, 2], 'must be a mapping of sections'],
    [{ base: 3 }, 'section `base` must be a mapping of settings'],
    [{ max_steps: 3 }, '`max_steps` is a setting, not a section; put it under `base:`'],
  ])('the document %j is refused: %s', (doc, message) => {
    expect(problem(() => resolveWith('debug_agent', [], doc))).toContain(message);
  });

  test('an empty document with overrides alone is a valid config', () => {
    expect(resolveWith('rewrite_agent', ['base.llm_name=human'], null)).toMatchObject({ agent_type: 'rewrite_agent', llm_name: 'human', max_steps: 100 });
  });
});

describe('config files', () => {
  test.each(['debug_agent', 'rewrite_agent', 'debug_5_agent'])('the shipped custom_repo.yaml is valid for %s and points at the demo repository', async (agent) => {
    const config = await loadRunConfig(join(configsDir, 'custom_repo.yaml'), { agent });
    expect(config.agent_type).toBe(agent);
    expect(config.env.path).toBe(new URL('../demo/repo', import.meta.url).pathname);
  });

  test.each(['debug_agent', 'rewrite_agent', 'debug_5_agent', 'solution'])('the shipped mini_nightmare.yaml is valid for %s', async (agent) => {
    const config = await loadRunConfig(join(configsDir, 'mini_nightmare.yaml'), { agent });
    expect(config).toMatchObject({ agent_type: agent, benchmark: 'mini-nightmare' });
  });

  test('a missing or malformed file is reported with its name', async () => {
    const dir = testdir({ 'bad.yaml': 'base: [unclosed' });
    await expect(loadRunConfig(join(dir, 'missing.yaml'), { agent: 'debug_agent' })).rejects.toThrow(/Cannot read the config file .*missing\.yaml/);
    await expect(loadRunConfig(join(dir, 'bad.yaml'), { agent: 'debug_agent' })).rejects.toThrow(/bad\.yaml is not valid YAML/);
    writeFileSync(join(dir, 'ok.yaml'), 'base:\n  llm_name: human\n  env: { path: repo }\n');
    expect((await loadRunConfig(join(dir, 'ok.yaml'), { agent: 'debug_agent' })).env.path).toBe(join(dir, 'repo'));
  });
});
