import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type Terminal } from '@debug-gym/core';
import { availableBackends, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { beforeAll, describe, expect, it } from 'vitest';
import r2egym, { buildOfflineInstances, type OfflineDataset } from '../src/index.js';

/**
 * Real instances over a real project: xmltodict from Debian's `python-xmltodict` source package,
 * three fixing commits, hidden tests from its own test files plus an XFAIL and an XPASS, the
 * expected output from real runs parsed by R2E-Gym's parser (as its validate_docker_and_hf.py does).
 * Local folders on bubblewrap (else the local terminal): no image needed, so this suite stays fast;
 * every instance's gold patch and the image instances run in `e2e/` (`pnpm --filter @debug-gym/bench-r2egym test:e2e`).
 */
const backends = await availableBackends();
const sandbox = backends.find((backend) => backend.name === 'bubblewrap') ?? backends.find((backend) => backend.name === 'local');
let built: OfflineDataset;
let tasks: BenchmarkTask[] = [];

beforeAll(async () => {
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', 'bench-swesmith', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'r2egym-offline-'));
  built = await buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython });
  tasks = (await r2egym.loadTasks({ dataPath: built.localJsonl, cacheDir: out })).tasks;
}, 300_000);

function env(task: BenchmarkTask, terminal: Terminal): RepoEnv {
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 120, terminal, tools: [rewriteTool, evalTool] });
}

describe('the offline instances', () => {
  it("are in R2E-Gym's exact schema, the expected output from R2E-Gym's parser (no XFAIL/XPASS entries)", () => {
    expect(built.rows).toHaveLength(3);
    for (const row of built.rows) {
      expect(Object.keys(row).sort()).toEqual(
        ['commit_hash', 'docker_image', 'execution_result_content', 'expected_output_json', 'modified_entity_summaries', 'modified_files', 'num_non_test_files', 'num_non_test_func_methods', 'num_non_test_lines', 'parsed_commit_content', 'problem_statement', 'prompt', 'relevant_files', 'repo_name'].sort(),
      );
      expect(row.docker_image).toBe(`debug-gym-offline/xmltodict_final:${row.commit_hash as string}`);
      const expected = JSON.parse(row.expected_output_json as string) as Record<string, string>;
      expect(Object.keys(expected).length).toBeGreaterThan(20);
      expect(Object.keys(expected).some((key) => key.includes('attribute_round_trip') || key.includes('malformed'))).toBe(false);
      const execution = JSON.parse(row.execution_result_content as string) as { new_commit_res_stdout: string; test_file_names: string[] };
      expect(execution.new_commit_res_stdout).toMatch(/^XFAIL r2e_tests\/test_2\.py::test_malformed_document_is_rejected_quietly/m);
      expect(execution.new_commit_res_stdout).toMatch(/^XPASS r2e_tests\/test_2\.py::test_attribute_round_trip/m);
      expect(execution.test_file_names).toEqual(['test_1.py', 'test_2.py']);
    }
  });
});

describe.skipIf(!sandbox)(`a local-folder instance on the ${sandbox?.name} terminal (real pytest)`, () => {
  it('no-op: unresolved; the hidden tests are not in the sandbox and the fixing commit is reachable from no ref', async () => {
    const task = tasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      const info = await e.reset();
      expect(info.resolved).toBe(false);
      expect(info.score).toBe(0);
      expect(info.maxScore).toBe(1);
      expect((await e.terminal.run('ls r2e_tests 2>&1; git for-each-ref | wc -l; git log --all --oneline | wc -l')).output.trim().split('\n')).toEqual([expect.stringMatching(/No such file/), '0', '1']);
      const [tests] = (await r2egym.secrets?.(task)) ?? [];
      expect(tests?.label).toMatch(/hidden tests/);
      expect(tests?.promise).toBe('sandbox');
    } finally {
      await e.close();
    }
  });

  it("gold (the fixing commit's patch, as the solution agent's rewrite calls): resolved; the XFAIL and XPASS run but are not graded", async () => {
    const task = tasks[1] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      const run = await runSolution(e, (await r2egym.solution?.(task)) ?? []);
      expect(run.failedCalls).toEqual([]);
      expect(run.info?.resolved).toBe(true);
      const result = await e.evaluate();
      expect(result.details).toMatchObject({ reward: 1, mismatched: [], unexpected: [] });
      // R2E-Gym's expected map has no entry for them (its parser drops XFAIL/XPASS lines); the original's #363 grader reads them as optional passes.
      // pytest 8 writes `XPASS file::test - reason`, pytest 7 `XPASS file::test reason`: the original's key keeps the reason then, as ours does.
      const parsed = Object.entries((result.details as { parsed_tests: Record<string, string> }).parsed_tests);
      expect(parsed.filter(([key]) => /^test_(attribute_round_trip|malformed_document_is_rejected_quietly)\b/.test(key)).sort(([a], [b]) => a.localeCompare(b))).toEqual([
        [expect.stringMatching(/^test_attribute_round_trip( round trips of attributes may reorder them)?$/), 'PASSED'],
        ['test_malformed_document_is_rejected_quietly', 'PASSED'],
      ]);
      expect((await e.terminal.run('ls r2e_tests 2>&1')).output).toMatch(/No such file/);
    } finally {
      await e.close();
    }
  });

  it('a wrong fix stays unresolved; tests the agent wrote into r2e_tests/ are replaced by the hidden ones', async () => {
    const task = tasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      await e.terminal.run("mkdir -p r2e_tests && printf 'def test_nothing():\\n    pass\\n' > r2e_tests/test_1.py && sed -i 's/full_name\\[i:\\]/full_name[i+2:]/' xmltodict.py");
      const result = await e.evaluate();
      expect(result.success).toBe(false);
      expect(result.details).toMatchObject({ reward: 0 });
      expect((result.details as { mismatched: string[] }).mismatched.length).toBeGreaterThan(0);
      expect(result.output).not.toMatch(/test_nothing/);
    } finally {
      await e.close();
    }
  });
});
