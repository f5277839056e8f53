import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask } from '@debug-gym/core';
import { DockerTerminal } from '@debug-gym/terminal';
import { availableBackends, testDockerImage, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swegym, { buildOfflineInstances, type OfflineDataset } from '../../src/index.js';

/** The image instances on Docker (`pnpm --filter @debug-gym/bench-swegym test:e2e`): each image named as SWE-Gym names its own. */
const docker = (await availableBackends()).some((backend) => backend.name === 'docker');
const namespace = `debug-gym-test-${process.pid}`;
let built: OfflineDataset;
let tasks: BenchmarkTask[] = [];

beforeAll(async () => {
  if (!docker) return;
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', '..', 'bench-swesmith', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'swegym-e2e-'));
  built = await buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython, baseImage: testDockerImage, namespace });
  tasks = (await swegym.loadTasks({ dataPath: built.jsonl, cacheDir: out, options: { namespace } })).tasks;
}, 900_000);

afterAll(() => {
  for (const image of built?.images ?? []) execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
});

describe.skipIf(!docker)('the image instances on Docker', () => {
  it('every instance: no-op unresolved, gold (rewrite calls) resolved', async () => {
    for (const task of tasks) {
      expect(task.docker?.image).toBe(`${namespace}/sweb.eval.x86_64.${task.id.replace('__', '_s_')}:latest`);
      const e = new RepoEnv({ ...taskEnvOptions(task), runTimeout: 300, terminal: new DockerTerminal({ image: task.docker?.image as string, workdir: '/testbed', python: 'python', env: task.docker?.env ?? {} }), tools: [rewriteTool, evalTool] });
      try {
        expect((await e.reset()).resolved, task.id).toBe(false);
        const run = await runSolution(e, (await swegym.solution?.(task)) ?? []);
        expect(run.failedCalls).toEqual([]);
        expect(run.info?.resolved, task.id).toBe(true);
      } finally {
        await e.close();
      }
    }
  });
});
