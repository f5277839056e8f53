/**
 * `eval` through the sandbox's fork server against the cold command, on every backend: the same
 * observation (timings aside), exit code and score, the current files, nothing kept between runs.
 */
import type { EnvInfo } from '@debug-gym/core';
import { availableBackends, createTestEnv, sharedDataPath } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import evalTool from '../src/index.js';

const backends = await availableBackends();

/** The mini-nightmare `config` task's known fix (bench-mini-nightmare/solutions/config.patch). */
const CONFIG_FIX = `--- a/config_code.py
+++ b/config_code.py
@@ -1,8 +1,8 @@
 class ConfigManager:
     """A configuration manager that allows dot notation access to configuration values."""
-    _cache = {}
-    
+
     def __init__(self, config_dict=None):
+        self._cache = {}
         self._config = config_dict or {}
         self._defaults = {
             'database': {
@@ -36,3 +36,5 @@ class ConfigManager:
 
     def set(self, name, value):
         self._config[name] = value
+        if name in self._cache:
+            del self._cache[name]
`;

/** A test suite that leaves traces everywhere a forked process could carry them to the next run. */
const LEAKY = {
  'state.py': 'COUNT = []\n',
  'test_state.py': [
    'import os, sys, state',
    '',
    'def test_fresh_interpreter():',
    "    assert state.COUNT == [], 'module state from an earlier run'",
    "    assert 'planted' not in sys.modules and not hasattr(sys, 'planted')",
    "    assert os.environ.get('PLANTED') is None",
    "    print('EDITED=%s' % getattr(state, 'EDITED', None))",
    '    state.COUNT.append(1)',
    "    sys.modules['planted'] = state",
    '    sys.planted = True',
    "    os.environ['PLANTED'] = '1'",
    '',
  ].join('\n'),
};

/** What changes between two identical runs anyway: pytest's timing. */
function timeless(text: string): string {
  return text.replace(/ in \d+\.\d+s/g, ' in Ns');
}

function evalOf(info: EnvInfo): { output: string; score: number; maxScore: number | null; exitCode: number | null } {
  return { output: timeless(info.lastEval?.output ?? ''), score: info.score, maxScore: info.maxScore, exitCode: info.lastEval?.exitCode ?? null };
}

describe.each(backends)('eval through the fork server on $name', (backend) => {
  const envs: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });
  function env(options: Parameters<typeof createTestEnv>[1]) {
    const created = createTestEnv(backend, options);
    envs.push(created);
    return created;
  }

  it('scores the mini-nightmare config task like the cold command, untouched and with its fix', async () => {
    const results = [];
    for (const forkServer of [true, false]) {
      const e = env({ path: sharedDataPath('mini_nightmare', 'config'), entrypoint: 'python -m pytest --tb=no -s test.py', tools: [evalTool], goldPatch: CONFIG_FIX, forkServer });
      // The reset's run is the untouched one.
      const untouched = await e.reset();
      expect((await e.applyGoldPatch()).applied).toBe(true);
      const fixed = await e.step({ name: 'eval', arguments: {} });
      const via = forkServer ? 'fork-server' : undefined;
      for (const info of [untouched, fixed]) expect(info.lastEval?.launch?.via).toBe(via);
      expect(fixed.launches).toEqual(forkServer ? [expect.objectContaining({ source: 'eval', via: 'fork-server' })] : []);
      results.push({ untouched: evalOf(untouched), fixed: evalOf(fixed) });
    }
    const [forked, cold] = results;
    expect(forked).toEqual(cold);
    expect(cold?.untouched).toMatchObject({ score: 0, maxScore: 2, exitCode: 1 });
    expect(cold?.fixed).toMatchObject({ score: 2, maxScore: 2, exitCode: 0 });
  });

  it('starts every run from a fresh interpreter and the current files: module globals, sys.modules and the environment a test changed do not leak', async () => {
    const e = env({ files: LEAKY, tools: [evalTool] });
    const first = await e.reset();
    // A module edited between two runs is seen (state.py gains a name the next run's test uses).
    await e.workspace.writeText('state.py', 'COUNT = []\nEDITED = True\n');
    const second = await e.step({ name: 'eval', arguments: {} });
    expect(first.lastEval?.output).toContain('EDITED=None');
    expect(second.lastEval?.output).toContain('EDITED=True');
    for (const info of [first, second]) {
      expect(info.lastEval?.launch?.via).toBe('fork-server');
      expect(info.score).toBe(1);
    }
  });
});
