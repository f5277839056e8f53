import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type Terminal } from '@debug-gym/core';
import { buildOfflineInstances, type OfflineDataset } from '@debug-gym/bench-swegym';
import { availableBackends, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { beforeAll, describe, expect, it } from 'vitest';
import swebenchDebug, { plainEvaluation, swebenchDebugScorer } from '../src/index.js';

const run = (output: string) => ({ output, exitCode: 0, timedOut: false, durationMs: 1, timeoutMs: 1000 });

describe("the original's SWEBenchEnv.calculate_score (kept by SWEBenchDebugEnv)", () => {
  const scorer = swebenchDebugScorer({ repo: 'o/r', FAIL_TO_PASS: ['t.py::a', 't.py::b'], PASS_TO_PASS: ['t.py::c'] });
  it('F2P counts PASSED or XFAIL; a missing F2P test is ERROR ("do not assume silent success")', () => {
    expect(scorer(run('PASSED t.py::a\nXFAIL t.py::b\nPASSED t.py::c\n'))).toMatchObject({ score: 2, maxScore: 2, success: true });
    expect(scorer(run('PASSED t.py::a\nPASSED t.py::c\n'))).toMatchObject({ score: 1, success: false });
  });
  it('a missing P2P test passes (silent success), a FAILED one zeroes the score', () => {
    expect(scorer(run('PASSED t.py::a\nPASSED t.py::b\n'))).toMatchObject({ score: 2, success: true });
    expect(scorer(run('PASSED t.py::a\nPASSED t.py::b\nFAILED t.py::c - boom\n'))).toMatchObject({ score: 0, success: false });
  });
});

/**
 * Real instances over a real project (bench-swegym's offline xmltodict issues, SWE-bench's schema),
 * as local folders on bubblewrap (else local).
 */
const backends = await availableBackends();
const sandbox = backends.find((backend) => backend.name === 'bubblewrap') ?? backends.find((backend) => backend.name === 'local');
let built: OfflineDataset;
let tasks: BenchmarkTask[] = [];

beforeAll(async () => {
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', 'bench-swesmith', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'swebench-debug-'));
  built = await buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython });
  tasks = (await swebenchDebug.loadTasks({ dataPath: built.localJsonl, cacheDir: out })).tasks;
}, 300_000);

function env(task: BenchmarkTask, terminal: Terminal): RepoEnv {
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 120, terminal, tools: [rewriteTool, evalTool] });
}

describe.skipIf(!sandbox)(`swebench-debug on the ${sandbox?.name} terminal (real pytest)`, () => {
  it('no-op: unresolved; the test patch is committed and its new test file is in the working copy', async () => {
    const task = tasks[1] as BenchmarkTask;
    expect(task.evaluation).toBe(plainEvaluation);
    const e = env(task, sandbox!.create());
    try {
      const info = await e.reset();
      expect(info.resolved).toBe(false);
      expect(info.maxScore).toBe(1);
      expect((await e.terminal.run('git log --format=%s -1; ls tests/test_unparse_namespaces.py; git status --porcelain')).output.trim().split('\n')).toEqual([`Applying test patch for ${task.id}`, 'tests/test_unparse_namespaces.py']);
      expect(info.evalObservation?.observation).toMatch(/FAILED tests\/test_unparse_namespaces\.py::NamespacedAttributesTestCase::test_namespaced_attribute_is_expanded/);
    } finally {
      await e.close();
    }
  });

  it('a wrong fix: unresolved (the tests ran); gold as rewrite calls: resolved', async () => {
    const task = tasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      await e.terminal.run(`sed -i 's/if "==" in value:/if "+" in value:/' xmltodict.py`);
      const wrong = await e.evaluate();
      expect(wrong.success).toBe(false);
      expect(wrong.details).toMatchObject({ parsedTests: expect.any(Number) });
      expect((wrong.details as { parsedTests: number }).parsedTests).toBeGreaterThan(10);
      await e.terminal.run('git checkout -- xmltodict.py');
      const solved = await runSolution(e, (await swebenchDebug.solution?.(task)) ?? []);
      expect(solved.failedCalls).toEqual([]);
      expect(solved.info?.resolved).toBe(true);
    } finally {
      await e.close();
    }
  });
});
