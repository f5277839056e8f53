import { afterEach, describe, expect, it } from 'vitest';
import { localBackend, createTestEnv, type Backend } from '../../../tools/test-utils/src/index.js';
import {
  BenchmarkDataError,
  EnvConfigError,
  EnvNotReadyError,
  UnknownTaskError,
  defineBenchmark,
  defineToolPlugin,
  isBenchmark,
  runSolution,
  selectTasks,
  taskEnvOptions,
  type BenchmarkTask,
  type RepoEnv,
} from '../src/index.js';

const local: Backend = localBackend;

const PLAIN_PATCH = `--- app.py.orig\t2024-01-01 00:00:00
+++ app.py\t2024-01-01 00:00:00
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
`;

describe('benchmark helpers', () => {
  const task: BenchmarkTask = {
    id: 't1',
    benchmark: 'demo',
    path: '/data/t1',
    instructions: 'Fix it.',
    entrypoint: 'python -m pytest test.py',
    debugEntrypoint: 'python -m pdb -m pytest test.py',
    ignorePatterns: ['.meta/'],
    readonlyPatterns: ['*_test.py'],
    setupCommands: ['true'],
    runTimeout: 20,
    maxScore: 3,
    goldPatch: PLAIN_PATCH,
  };

  it('maps a task to RepoEnv options, leaving out what the task does not set', () => {
    expect(taskEnvOptions(task)).toEqual({
      path: '/data/t1',
      entrypoint: 'python -m pytest test.py',
      instructions: 'Fix it.',
      debugEntrypoint: 'python -m pdb -m pytest test.py',
      ignorePatterns: ['.meta/'],
      readonlyPatterns: ['*_test.py'],
      setupCommands: ['true'],
      runTimeout: 20,
      maxScore: 3,
      goldPatch: PLAIN_PATCH,
    });
    expect(Object.keys(taskEnvOptions({ id: 'x', benchmark: 'b', path: '/p', instructions: 'i', entrypoint: 'e' }))).toEqual(['path', 'entrypoint', 'instructions']);
  });

  it('selects tasks in the requested order and names unknown ids with the known ones', () => {
    const tasks = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    expect(selectTasks('demo', tasks, undefined)).toEqual(tasks);
    expect(selectTasks('demo', tasks, ['c', 'a', 'c'])).toEqual([{ id: 'c' }, { id: 'a' }]);
    expect(() => selectTasks('demo', tasks, ['a', 'zz'])).toThrow(UnknownTaskError);
    expect(() => selectTasks('demo', tasks, ['zz'])).toThrow("demo has no task 'zz'. Known tasks: a, b, c.");
    const many = Array.from({ length: 40 }, (_, index) => ({ id: `t${index}` }));
    expect(() => selectTasks('demo', many, ['nope'])).toThrow(/t29, \.\.\. \(40 in all\)/);
  });

  it('checks the benchmark shape', () => {
    const ok = { specificationVersion: 'benchmark-v1' as const, name: 'demo-bench', description: 'd', loadTasks: async () => ({ benchmark: 'demo-bench', source: 's', tasks: [], complete: true, warnings: [] }) };
    expect(defineBenchmark(ok)).toBe(ok);
    expect(isBenchmark(ok)).toBe(true);
    expect(isBenchmark({ name: 'x' })).toBe(false);
    expect(isBenchmark(null)).toBe(false);
    expect(() => defineBenchmark({ ...ok, specificationVersion: 'v0' as 'benchmark-v1' })).toThrow(/specificationVersion/);
    expect(() => defineBenchmark({ ...ok, name: 'Bad Name' })).toThrow(/kebab-case/);
    expect(() => defineBenchmark({ ...ok, loadTasks: undefined as never })).toThrow(/no loadTasks/);
  });

  it('names the file and the fix in data errors', () => {
    const error = new BenchmarkDataError('aider', 'the exercise has no test file', { file: '/d/two-fer/two_fer_test.py', fix: 'download the data again' });
    expect(error.message).toBe('aider: the exercise has no test file\nFile: /d/two-fer/two_fer_test.py\nFix: download the data again');
    expect(error.code).toBe('DG_BENCH_DATA');
    expect(error.file).toBe('/d/two-fer/two_fer_test.py');
    expect(BenchmarkDataError.isInstance(error)).toBe(true);
  });
});

/** A stand-in for @debug-gym/tool-rewrite (core cannot depend on it): whole-file writes only. */
const writeTool = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'rewrite',
  description: 'Write a file.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, new_code: { type: 'string' } }, required: ['path', 'new_code'] },
  create: () => ({
    run: async (args, context) => {
      if (args.path === 'fail.py') return 'Edit failed. Error message:\nno\n';
      await context.workspace.writeText(String(args.path), String(args.new_code));
      return 'written';
    },
  }),
});
const evalTool = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'eval',
  description: 'Run the tests.',
  parameters: { type: 'object', properties: {} },
  create: () => ({ run: async (_args, context) => (await context.evaluate('eval')).output }),
});

const BUGGY = {
  'app.py': 'def add(a, b):\n    return a - b\n',
  'test_app.py': 'from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n',
};

describe('RepoEnv benchmark options on the local backend', () => {
  const envs: RepoEnv[] = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });
  function env(options: Parameters<typeof createTestEnv>[1]): RepoEnv {
    const created = createTestEnv(local, options);
    envs.push(created);
    return created;
  }

  it('applies the gold patch and the next evaluation resolves', async () => {
    const repoEnv = env({ files: BUGGY, goldPatch: PLAIN_PATCH.replace('app.py.orig', 'a/app.py').replace('+++ app.py', '+++ b/app.py') });
    const before = await repoEnv.reset();
    expect(before.resolved).toBe(false);
    const result = await repoEnv.applyGoldPatch();
    expect(result).toMatchObject({ applied: true, method: 'git apply --verbose', files: ['app.py'] });
    const after = await repoEnv.evaluate();
    expect(after.success).toBe(true);
  });

  it('reports a gold patch that does not apply, after trying every method', async () => {
    const repoEnv = env({ files: { 'app.py': 'other\n' }, goldPatch: PLAIN_PATCH });
    await repoEnv.reset();
    const result = await repoEnv.applyGoldPatch();
    expect(result.applied).toBe(false);
    expect(result.method).toBeNull();
    expect(result.output).toContain('$ patch --batch --fuzz=5 -p1');
  });

  it('refuses applyGoldPatch without a gold patch or before reset', async () => {
    const repoEnv = env({ files: BUGGY });
    await expect(repoEnv.applyGoldPatch()).rejects.toThrow(EnvNotReadyError);
    await repoEnv.reset();
    await expect(repoEnv.applyGoldPatch()).rejects.toThrow(EnvConfigError);
  });

  it('runs the evaluation procedure instead of the entrypoint and scores its output', async () => {
    const seen: string[] = [];
    const repoEnv = env({
      files: BUGGY,
      evaluation: async ({ terminal, entrypoint, timeoutMs }) => {
        seen.push(entrypoint);
        await terminal.writeFile('test_hidden.py', 'def test_hidden():\n    assert True\n');
        const run = await terminal.run(entrypoint, { timeoutMs });
        await terminal.remove('test_hidden.py');
        return run;
      },
    });
    const info = await repoEnv.reset();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain('-m pytest');
    expect(info.score).toBe(1);
    expect(info.maxScore).toBe(2);
    expect(await repoEnv.terminal.stat('test_hidden.py')).toBeNull();
  });

  it('runSolution replays the calls through the tools, then evaluates', async () => {
    const repoEnv = env({ files: BUGGY, tools: [writeTool, evalTool] });
    const run = await runSolution(repoEnv, [
      { name: 'rewrite', arguments: { path: 'app.py', new_code: 'def add(a, b):\n    return a + b\n' } },
      { name: 'rewrite', arguments: { path: 'fail.py', new_code: '' } },
      { name: 'nope', arguments: {} },
    ]);
    expect(run.steps).toHaveLength(4);
    expect(run.failedCalls.map((failed) => failed.call.name)).toEqual(['rewrite', 'nope']);
    expect(run.info.resolved).toBe(true);
    expect(run.info.actionToolCall?.name).toBe('eval');
  });
});
