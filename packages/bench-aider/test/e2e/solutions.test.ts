import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSolution, taskEnvOptions, type BenchmarkTask } from '@debug-gym/core';
import { availableBackends, createTestEnv, sharedDataPath, type Backend } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { describe, expect, it } from 'vitest';
import aider from '../../src/index.js';

const { tasks } = await aider.loadTasks({ dataPath: sharedDataPath('aider'), cacheDir: mkdtempSync(join(tmpdir(), 'aider-e2e-')) });
const backends = await availableBackends();
/** Exercises with something special: helper test files, a hidden file, a skipped test, exceptions. */
const SAMPLE = ['two_fer', 'paasio', 'bowling', 'alphametics', 'error_handling'];

async function solve(backend: Backend, task: BenchmarkTask): Promise<{ before: boolean; after: boolean; metaVisible: boolean; output: string }> {
  const env = createTestEnv(backend, { ...taskEnvOptions(task), tools: [rewriteTool, evalTool] });
  try {
    const start = await env.reset();
    const metaVisible = (await env.terminal.stat('.meta')) !== null;
    const run = await runSolution(env, (await aider.solution?.(task)) ?? [], { info: start });
    return { before: start.resolved, after: run.info.resolved, metaVisible, output: run.info.evalObservation?.observation ?? '' };
  } finally {
    await env.close();
  }
}

describe.each(backends)('the solution agent on $name', (backend) => {
  it.each(SAMPLE)('%s: the stub fails, the reference solution resolves, and .meta never reaches the sandbox', async (id) => {
    const task = tasks.find((candidate) => candidate.id === id) as BenchmarkTask;
    const result = await solve(backend, task);
    expect(result.metaVisible).toBe(false);
    expect(result.before).toBe(false);
    expect(result.after, result.output).toBe(true);
  });
});

// Every one of the 140 reference solutions, on every backend, is the validation sweep's job
// (`pnpm validate`: `debug-gym check aider`), not the unit tests'.
