import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectory } from '@debug-gym/agents';
import { availableBackends, sharedDataPath, testDockerImage, testPython, testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import { benchCommand, BENCHMARK_PACKAGES, benchmarkKey, loadBenchmark, type RunResults } from '../src/index.js';
import { captureIo } from './helpers/io.js';

const solutionsDir = new URL('../../bench-mini-nightmare/solutions/', import.meta.url).pathname;
const backends = await availableBackends();

function terminalParams(name: string): string[] {
  return name === 'docker' ? [`terminal.image=${testDockerImage}`, 'terminal.python=python3'] : [`terminal.python=${testPython}`];
}

describe('loading benchmarks', () => {
  test.each(Object.keys(BENCHMARK_PACKAGES))('%s loads by name', async (name) => {
    expect((await loadBenchmark(name)).name).toBe(name);
  });

  test('the original spelling mini_nightmare works, typos get a suggestion', async () => {
    expect(benchmarkKey('Mini_Nightmare')).toBe('mini-nightmare');
    expect((await loadBenchmark('mini_nightmare')).name).toBe('mini-nightmare');
    await expect(loadBenchmark('aidr')).rejects.toThrow("Unknown benchmark 'aidr'; did you mean 'aider'?");
    await expect(loadBenchmark('zzz')).rejects.toThrow("Unknown benchmark 'zzz'. Benchmarks: aider, mini-nightmare, r2egym, swebench, swebench-debug, swegym, swesmith (or a package");
  });

  test('a path to a module with a benchmark as default export loads from the config folder; other modules are refused', async () => {
    const dir = testdir({
      'my-bench.mjs': "export default { specificationVersion: 'benchmark-v1', name: 'mine', description: '', loadTasks: async () => ({ benchmark: 'mine', source: '', tasks: [], complete: true, warnings: [] }) };",
      'not-bench.mjs': 'export default 42;',
    });
    expect((await loadBenchmark('./my-bench.mjs', { from: dir })).name).toBe('mine');
    await expect(loadBenchmark('./not-bench.mjs', { from: dir })).rejects.toThrow('does not export a benchmark');
    await expect(loadBenchmark('./missing.mjs', { from: dir })).rejects.toThrow(/Cannot load benchmark '\.\/missing\.mjs'/);
  });
});

describe('debug-gym bench', () => {
  test('needs a model unless the agent is the solution agent', async () => {
    await expect(benchCommand('aider', {})).rejects.toThrow('Which model? Give --llm NAME');
  });

  test('missing data names the folder and the fix, and no score is reported', async () => {
    const empty = testdir({ 'README.md': 'nothing here' });
    const capture = captureIo();
    const run = benchCommand('mini-nightmare', { agent: 'solution', dataPath: empty, out: testdir({}), io: capture.io, handleSigint: false });
    await expect(run).rejects.toThrow(new RegExp(`^mini-nightmare: no task folder found[\\s\\S]*\\nFile: ${empty}\\nFix: restore the file in ${empty}`));
    expect(capture.stdout()).not.toContain('Resolved');
  });

  test('a partial copy of the data is run but its score is labelled PARTIAL', async () => {
    const partial = testdir({});
    for (const name of ['purr', 'sum_tree']) cpSync(sharedDataPath('mini_nightmare', name), join(partial, name), { recursive: true });
    const capture = captureIo();
    const results = await benchCommand('mini-nightmare', {
      agent: 'solution',
      dataPath: partial,
      terminal: 'local',
      out: testdir({}),
      params: [`terminal.python=${testPython}`],
      io: capture.io,
      handleSigint: false,
    });
    expect(results.totals).toMatchObject({ tasks: 2, resolved: 2 });
    expect(results).toMatchObject({ partial: true, dataset: { complete: false, expectedCount: 10 } });
    expect(capture.stderr()).toMatch(/WARNING: the mini-nightmare data at .* is PARTIAL \(2 of 10 tasks\)/);
    expect(capture.stdout()).toMatch(/PARTIAL: this is not a full mini-nightmare score: the mini-nightmare data is partial \(2 of 10 tasks/);
  });

  test('--no-fresh-grading records the episode\'s own score; by default the final change is graded again', async () => {
    const options = { agent: 'solution', dataPath: sharedDataPath('mini_nightmare'), tasks: 'purr', terminal: 'local' as const, params: [`terminal.python=${testPython}`], handleSigint: false };
    const graded = await benchCommand('mini-nightmare', { ...options, out: testdir({}), io: captureIo().io });
    expect(graded.tasks[0]).toMatchObject({ status: 'resolved', grading: { inEpisodeResolved: true, disagrees: false } });
    const ungraded = await benchCommand('mini-nightmare', { ...options, out: testdir({}), io: captureIo().io, freshGrading: false });
    expect(ungraded.tasks[0]).toMatchObject({ status: 'resolved' });
    expect(ungraded.tasks[0]?.grading).toBeUndefined();
  });

  describe.each(backends)('mini-nightmare with the solution agent on $name', ({ name }) => {
    // Three tasks (one needs the network); every task on every terminal is `pnpm validate`'s job.
    test('resolves the tasks that run offline, and reports pandas_dataframe as needing the network', async () => {
      const out = testdir({});
      const capture = captureIo();
      const results: RunResults = await benchCommand('mini-nightmare', {
        agent: 'solution',
        solutions: solutionsDir,
        dataPath: sharedDataPath('mini_nightmare'),
        tasks: 'purr,pandas_dataframe,config',
        terminal: name,
        workers: 2,
        out,
        params: terminalParams(name),
        io: capture.io,
        handleSigint: false,
      });
      const statuses = Object.fromEntries(results.tasks.map((task) => [task.task, task.status]));
      expect(statuses).toEqual({ purr: 'resolved', pandas_dataframe: 'needs network', config: 'resolved' });
      // The known fix ran to its end without resolving (no network): not a step limit.
      expect(results.tasks.find((task) => task.task === 'pandas_dataframe')?.stopReason).toBe('replay_exhausted');
      expect(results.totals).toMatchObject({ tasks: 3, resolved: 2, needsNetwork: 1, errors: 0, resolvedRateOffline: 1 });
      expect(results).toMatchObject({ partial: true, terminal: name, runId: `mini-nightmare_solution_${name}` });
      expect(capture.stdout()).toContain('Resolved 2/3 (66.7%)');
      expect(capture.stdout()).toContain('1 task needs the network (pandas_dataframe), not counted as failure: 2/2 (100.0%)');
      const written = JSON.parse(readFileSync(join(out, `mini-nightmare_solution_${name}`, 'results.json'), 'utf8')) as RunResults;
      expect(written.totals.resolved).toBe(2);
      // The run's elapsed time, not the episodes' times added up (those are taskTimeMs).
      expect(written.totals.wallTimeMs).toBe(Date.parse(written.finishedAt) - Date.parse(written.startedAt));
      expect(written.totals.taskTimeMs).toBe(written.tasks.reduce((sum, task) => sum + task.wallTimeMs, 0));
      const trajectory = await readTrajectory(results.tasks.find((task) => task.task === 'purr')?.trajectory as string);
      expect(trajectory.steps.map((step) => step.toolCall?.name)).toEqual(['rewrite', 'eval']);
    });
  });

  test('aider with the solution agent resolves the exercises whose reference solution passes', async () => {
    const results = await benchCommand('aider', {
      agent: 'solution',
      dataPath: sharedDataPath('aider'),
      tasks: 'two_fer,bob,hello_world',
      terminal: 'local',
      workers: 2,
      out: testdir({}),
      params: [`terminal.python=${testPython}`],
      io: captureIo().io,
      handleSigint: false,
    });
    expect(results.tasks.map((task) => [task.task, task.status])).toEqual([
      ['two_fer', 'resolved'],
      ['bob', 'resolved'],
      ['hello_world', 'resolved'],
    ]);
    expect(results).toMatchObject({ subset: true, partial: true, partialReasons: ['only 3 tasks were selected (--tasks)'] });
  });

  test('--tasks with an unknown id is an error naming the known ones', async () => {
    await expect(
      benchCommand('mini-nightmare', { agent: 'solution', dataPath: sharedDataPath('mini_nightmare'), tasks: 'purr,pur', out: testdir({}), io: captureIo().io }),
    ).rejects.toThrow(/mini-nightmare has no task 'pur'/);
  });
});
