import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSolution, taskEnvOptions, type BenchmarkTask } from '@debug-gym/core';
import { availableBackends, createTestEnv, sharedDataPath } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { describe, expect, it } from 'vitest';
import miniNightmare, { MINI_NIGHTMARE_TASKS, bundledSolutionsDir, miniNightmareSolution } from '../../src/index.js';

const { tasks } = await miniNightmare.loadTasks({ dataPath: sharedDataPath('mini_nightmare') });
const backends = await availableBackends();
const OFFLINE_PANDAS_CHECK = "import pandas as pd, pandas_dataframe_code as m; print(m.calculate_stats(pd.DataFrame({'fare': [1.0, 14.4542, 30.0]})))";

describe('mini-nightmare solutions', () => {
  it('has one fix per task, each a list of rewrite calls', async () => {
    for (const task of tasks) {
      const calls = await miniNightmare.solution?.(task, { solutionsDir: bundledSolutionsDir });
      expect(calls?.length, task.id).toBeGreaterThan(0);
      for (const call of calls ?? []) expect(call.name).toBe('rewrite');
    }
    expect(tasks.map((task) => task.id)).toEqual([...MINI_NIGHTMARE_TASKS]);
  });

  it('uses the bundled fixes by default and gives null when a folder has no fix for the task', async () => {
    const task = tasks[0] as BenchmarkTask;
    expect(await miniNightmare.solution?.(task)).toEqual(await miniNightmareSolution(task, bundledSolutionsDir));
    expect(await miniNightmare.solution?.(task, { solutionsDir: mkdtempSync(join(tmpdir(), 'no-solutions-')) })).toBeNull();
  });
});

/** Every task on the local terminal; on the sandboxes, two (the full sweep is `pnpm validate`'s `debug-gym check`). */
const SANDBOX_SAMPLE = ['config', 'shopping_cart'];

describe.each(backends)('the solution agent on $name', (backend) => {
  const selected = backend.name === 'local' ? tasks : tasks.filter((task) => SANDBOX_SAMPLE.includes(task.id));
  it.each(selected.map((task) => [task.id, task] as const))('%s: unresolved before, resolved (or needs network) after the fix', async (_id, task) => {
    const env = createTestEnv(backend, { ...taskEnvOptions(task), tools: [rewriteTool, evalTool] });
    try {
      const start = await env.reset();
      if (!task.flaky) expect(start.resolved).toBe(false);
      const calls = (await miniNightmare.solution?.(task)) ?? [];
      const run = await runSolution(env, calls, { info: start });
      expect(run.failedCalls).toEqual([]);
      if (task.needsNetwork && !run.info.resolved) {
        // No internet here: the test cannot download its CSV ("needs network", not a failure of the fix).
        // Check the fix offline instead, on a frame with the data's column, where the sandbox has pandas.
        const check = await env.terminal.run(`${env.settings.python} -c "${OFFLINE_PANDAS_CHECK}"`, { timeoutMs: 60_000 });
        if (!check.output.includes("No module named 'pandas'")) expect(check.output.trim().split('\n').at(-1)).toBe('14.4542');
      } else {
        expect(run.info.resolved, run.info.evalObservation?.observation).toBe(true);
        expect(run.info.score).toBe(run.info.maxScore);
      }
    } finally {
      await env.close();
    }
  });
});
