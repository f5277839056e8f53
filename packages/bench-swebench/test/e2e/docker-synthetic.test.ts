import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask } from '@debug-gym/core';
import { DockerTerminal } from '@debug-gym/terminal';
import { availableBackends, testDockerImage } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swebench, { SYNTHETIC_INSTANCES, buildEvalScript, buildSyntheticDataset, evalReport, parseInstance, type SwebenchInstance, type SyntheticInstanceSpec } from '../../src/index.js';

const dockerAvailable = (await availableBackends()).some((backend) => backend.name === 'docker');

const spec = SYNTHETIC_INSTANCES[0] as SyntheticInstanceSpec;
const BASE_TESTS = spec.base['tests/test_ops.py'];

let instance: SwebenchInstance;
let task: BenchmarkTask;
let image = '';

/**
 * A tiny SWE-bench instance: a git repository at /testbed whose base commit has a bug, a test patch
 * (one modified test file, one new one) and a gold patch, built into an image from the offline base.
 */
beforeAll(async () => {
  if (!dockerAvailable) return;
  const context = mkdtempSync(join(tmpdir(), 'swebench-synthetic-'));
  const built = buildSyntheticDataset({ outDir: context, baseImage: testDockerImage, namespace: `debug-gym-test-${process.pid}`, instances: [spec] });
  image = built.images[0] as string;
  instance = parseInstance(built.rows[0] as Record<string, unknown>);
  const dataset = await swebench.loadTasks({ dataPath: built.jsonl, cacheDir: context, options: { namespace: `debug-gym-test-${process.pid}` } });
  task = dataset.tasks[0] as BenchmarkTask;
}, 120_000);

afterAll(() => {
  if (dockerAvailable) execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
});

function createEnv(): RepoEnv {
  // The real image would be task.docker.image (swebench/sweb.eval...); here, the synthetic one.
  const terminal = new DockerTerminal({ image, workdir: '/testbed', python: 'python3', env: task.docker?.env ?? {} });
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 60, terminal, tools: [rewriteTool, evalTool] });
}

describe.skipIf(!dockerAvailable)('a synthetic SWE-bench instance in Docker', () => {
  it('is unresolved at the base commit, keeps the hidden tests out of the working copy, and resolves with the gold patch', async () => {
    expect(task.docker?.image).toBe(`debug-gym-test-${process.pid}/sweb.eval.x86_64.synthetic_1776_calc-1:latest`);
    const env = createEnv();
    try {
      const start = await env.reset();
      expect(start.resolved).toBe(false);
      expect(start.maxScore).toBe(2);
      expect(start.score).toBe(0);
      expect(start.evalObservation?.observation).toContain('FAILED tests/test_ops.py::test_add');
      // The test patch was applied for the run only: nothing of it is left for the agent to read.
      expect(await env.terminal.stat('tests/test_new.py')).toBeNull();
      expect(Buffer.from(await env.terminal.readFile('tests/test_ops.py')).toString()).toBe(BASE_TESTS);
      expect((await env.terminal.run('git status --porcelain')).output.trim()).toBe('');

      const applied = await env.applyGoldPatch();
      expect(applied).toMatchObject({ applied: true, files: ['calc/ops.py'] });
      const result = await env.evaluate();
      expect(result.success).toBe(true);
      expect(result.details).toMatchObject({ status: 'RESOLVED_FULL' });
      const info = await env.step({ name: 'eval', arguments: {} });
      expect(info.resolved).toBe(true);
      expect(info.score).toBe(2);
    } finally {
      await env.close();
    }
  });

  it('resolves through the solution agent (the gold patch as rewrite calls), and the harness eval script agrees', async () => {
    const env = createEnv();
    try {
      const calls = (await swebench.solution?.(task)) ?? [];
      expect(calls).toEqual([{ name: 'rewrite', arguments: expect.objectContaining({ path: 'calc/ops.py' }) }]);
      const run = await runSolution(env, calls);
      expect(run.failedCalls).toEqual([]);
      expect(run.info.resolved).toBe(true);
      // The harness's own eval script, run in the same container, grades the same state as resolved.
      const log = await env.terminal.run('bash -s', { input: buildEvalScript(instance, { activate: false }), timeoutMs: 60_000 });
      const report = evalReport(instance, log.output)[instance.instance_id];
      expect(report).toMatchObject({ patch_successfully_applied: true, resolved: true });
      expect(report?.tests_status?.PASS_TO_PASS).toEqual({ success: ['tests/test_ops.py::test_sub'], failure: [] });
    } finally {
      await env.close();
    }
  });

  it('grades the base commit unresolved through the harness eval script too', async () => {
    const env = createEnv();
    try {
      await env.terminal.start();
      const log = await env.terminal.run('bash -s', { input: buildEvalScript(instance, { activate: false }), timeoutMs: 60_000 });
      expect(evalReport(instance, log.output)[instance.instance_id]).toMatchObject({
        resolved: false,
        tests_status: {
          FAIL_TO_PASS: { success: [], failure: ['tests/test_ops.py::test_add', 'tests/test_new.py::test_mul_and_add'] },
          PASS_TO_PASS: { success: ['tests/test_ops.py::test_sub'], failure: [] },
        },
      });
    } finally {
      await env.close();
    }
  });
});
