import { describe, expect, test } from 'vitest';
import { availableBackends, sharedDataPath } from '@debug-gym/test-utils';
import rewriteTool from '@debug-gym/tool-rewrite';
import { pdbEnvPerTest } from './support/pdb-env.js';

const backends = await availableBackends();
const TASK = sharedDataPath('mini_nightmare', 'config');

describe.each(backends)('pdb on the mini_nightmare config task on $name', (backend) => {
  const open = pdbEnvPerTest(backend);

  test('inspect the shared cache with pdb, fix it with rewrite, and the tests pass', async () => {
    const current = await open({ path: TASK, entrypoint: 'python -m pytest -sq test.py', evalOnReset: true, tools: [rewriteTool] });
    const { pdb, step, env, workdir } = current;
    const file = `${workdir}/config_code.py`;
    expect(current.reset.score).toBe(0);
    expect(await pdb('b config_code.py:20')).toContain(`Breakpoint 1 at ${file}:20`);
    await pdb('b config_code.py:38');
    const hit = await pdb('c');
    expect(hit).toContain(`Current frame:\n${file}:20\n`);
    expect(hit).toContain(' 20 B->\t        if name in self._cache:');
    expect(await pdb('p name')).toContain("Pdb command output:\n'database'\n");
    expect(await pdb('p self._cache is ConfigManager._cache')).toContain('Pdb command output:\nTrue\n');

    // The fix: an instance-level cache, cleared when a value is set.
    const first = await step('rewrite', { path: 'config_code.py', start: 6, new_code: '        self._cache = {}\n        self._config = config_dict or {}' });
    expect(first.stepObservation.observation).toContain('Debugging terminal started:\nStarting pdb session with entrypoint: ');
    expect(first.stepObservation.observation).toContain('Breakpoints have been restored.');
    expect(first.currentBreakpoints).toBe(`line 21 in ${file}\nline 39 in ${file}`);
    await step('rewrite', { path: 'config_code.py', start: 3, new_code: '' });
    const last = await step('rewrite', { path: 'config_code.py', start: 39, new_code: '        self._config[name] = value\n        self._cache.pop(name, None)' });
    expect(last.currentBreakpoints).toBe(`line 21 in ${file}`);

    expect(await pdb('c')).toContain(`Current frame:\n${file}:21\n`);
    expect(await pdb("p 'instance' if '_cache' in vars(self) else 'class'")).toContain("Pdb command output:\n'instance'\n");
    await pdb('cl');
    expect(await pdb('c')).toContain('2 passed');
    expect((await env.evaluate()).score).toBe(2);
  });
});
