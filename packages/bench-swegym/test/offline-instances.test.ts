import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type Terminal } from '@debug-gym/core';
import { availableBackends, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { beforeAll, describe, expect, it } from 'vitest';
import swegym, { buildOfflineInstances, type OfflineDataset } from '../src/index.js';

/**
 * Real instances over a real project: xmltodict from Debian's `python-xmltodict` source package, two
 * issues in SWE-Gym's (SWE-bench's) schema, FAIL_TO_PASS / PASS_TO_PASS from real runs with the test
 * patch before and after the gold patch. Local folders on bubblewrap (else local); the image
 * instances on Docker run in `e2e/` (`pnpm --filter @debug-gym/bench-swegym test:e2e`).
 */
const backends = await availableBackends();
const sandbox = backends.find((backend) => backend.name === 'bubblewrap') ?? backends.find((backend) => backend.name === 'local');
let built: OfflineDataset;
let tasks: BenchmarkTask[] = [];

beforeAll(async () => {
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', 'bench-swesmith', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'swegym-offline-'));
  built = await buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython });
  tasks = (await swegym.loadTasks({ dataPath: built.localJsonl, cacheDir: out })).tasks;
}, 300_000);

function env(task: BenchmarkTask, terminal: Terminal): RepoEnv {
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 120, terminal, tools: [rewriteTool, evalTool] });
}

describe('the offline instances', () => {
  it("are in SWE-Gym's (SWE-bench's) exact schema, FAIL_TO_PASS from real runs", () => {
    expect(built.rows).toHaveLength(2);
    for (const row of built.rows) {
      expect(Object.keys(row).sort()).toEqual(['FAIL_TO_PASS', 'PASS_TO_PASS', 'base_commit', 'created_at', 'environment_setup_commit', 'hints_text', 'instance_id', 'patch', 'problem_statement', 'repo', 'test_patch', 'version']);
      expect(row.instance_id).toMatch(/^martinblech__xmltodict-\d+$/);
    }
    expect(built.rows[0]?.FAIL_TO_PASS).toEqual(expect.arrayContaining(['tests/test_dicttoxml.py::EqualsInNamesTestCase::test_element_name_with_equals_is_rejected']));
    expect(built.rows[1]?.FAIL_TO_PASS).toEqual(['tests/test_unparse_namespaces.py::NamespacedAttributesTestCase::test_namespaced_attribute_is_expanded']);
  });
});

describe.skipIf(!sandbox)(`a local-folder instance on the ${sandbox?.name} terminal (real pytest)`, () => {
  it('no-op: unresolved, and the hidden test file (created by the test patch) is gone after the run', async () => {
    const task = tasks[1] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      const info = await e.reset();
      expect(info.resolved).toBe(false);
      expect(info.score).toBe(0);
      expect(info.stepObservation.observation).not.toMatch(/Reset Failed|dubious/);
      expect((await e.terminal.run('ls tests/test_unparse_namespaces.py 2>&1; git status --porcelain')).output.trim()).toMatch(/No such file/);
    } finally {
      await e.close();
    }
  });

  it("gold (as the solution agent's rewrite calls): resolved; a wrong fix: unresolved", async () => {
    const task = tasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      // A wrong fix: the element check is fixed, but by testing for a different character.
      await e.terminal.run(`sed -i 's/if "==" in value:/if "+" in value:/' xmltodict.py`);
      const wrong = await e.evaluate();
      expect(wrong.success).toBe(false);
      expect(wrong.details).toMatchObject({ status: 'RESOLVED_NO' });
      // The tests ran (not a failed reset): the element test now passes, the attribute one still fails.
      const graded = (wrong.details as { tests_status: { FAIL_TO_PASS: { success: string[]; failure: string[] } } }).tests_status.FAIL_TO_PASS;
      expect(graded.failure).toContain('tests/test_dicttoxml.py::EqualsInNamesTestCase::test_attribute_name_with_equals_is_rejected');
      await e.terminal.run('git checkout -- xmltodict.py');
      const run = await runSolution(e, (await swegym.solution?.(task)) ?? []);
      expect(run.failedCalls).toEqual([]);
      expect(run.info?.resolved).toBe(true);
      expect(run.info?.score).toBe(run.info?.maxScore);
    } finally {
      await e.close();
    }
  });
});
