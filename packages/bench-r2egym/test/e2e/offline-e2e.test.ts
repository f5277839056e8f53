import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type Terminal } from '@debug-gym/core';
import { DockerTerminal } from '@debug-gym/terminal';
import { availableBackends, testDockerImage, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import r2egym, { buildOfflineInstances, type OfflineDataset } from '../../src/index.js';

/**
 * The end-to-end sweep (`pnpm --filter @debug-gym/bench-r2egym test:e2e`, minutes): every offline
 * instance's gold patch on a sandbox, and the image instances on Docker, each image laid out as
 * R2E-Gym's Dockerfiles lay theirs out (repository and .venv in /testbed, run_tests.sh, /r2e_tests).
 */
const backends = await availableBackends();
const sandbox = backends.find((backend) => backend.name === 'bubblewrap') ?? backends.find((backend) => backend.name === 'local');
const docker = backends.some((backend) => backend.name === 'docker');
const namespace = `debug-gym-test-${process.pid}`;
let built: OfflineDataset;
let localTasks: BenchmarkTask[] = [];
let imageTasks: BenchmarkTask[] = [];

beforeAll(async () => {
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', '..', 'bench-swesmith', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'r2egym-e2e-'));
  built = await buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython, namespace, ...(docker ? { baseImage: testDockerImage } : {}) });
  localTasks = (await r2egym.loadTasks({ dataPath: built.localJsonl, cacheDir: out })).tasks;
  imageTasks = (await r2egym.loadTasks({ dataPath: built.jsonl, cacheDir: out })).tasks;
}, 900_000);

afterAll(() => {
  for (const image of built?.images ?? []) execFileSync('docker', ['rmi', '-f', image], { stdio: 'ignore' });
});

function env(task: BenchmarkTask, terminal: Terminal): RepoEnv {
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 300, terminal, tools: [rewriteTool, evalTool] });
}

describe.skipIf(!sandbox)(`every local-folder instance on ${sandbox?.name}`, () => {
  it('no-op unresolved, gold (git apply) resolved', async () => {
    for (const task of localTasks) {
      const e = env(task, sandbox!.create());
      try {
        expect((await e.reset()).resolved, task.id).toBe(false);
        expect(await e.applyGoldPatch()).toMatchObject({ applied: true });
        const result = await e.evaluate();
        expect(result.details, task.id).toMatchObject({ reward: 1, mismatched: [] });
      } finally {
        await e.close();
      }
    }
  });
});

describe.skipIf(!docker)('the image instances on Docker', () => {
  it('the image is the row\'s docker_image, /r2e_tests and run_tests.sh as upstream lays them out; no-op unresolved, wrong fix unresolved, gold resolved', async () => {
    const task = imageTasks[0] as BenchmarkTask;
    expect(task.docker?.image).toBe(`${namespace}/xmltodict_final:${task.metadata?.commit_hash as string}`);
    const make = (): DockerTerminal => new DockerTerminal({ image: task.docker?.image as string, workdir: '/testbed', python: task.docker?.python as string, env: task.docker?.env ?? {} });
    const e = env(task, make());
    try {
      const start = await e.reset();
      expect(start.resolved).toBe(false);
      expect((await e.terminal.run('ls /r2e_tests; ls run_tests.sh r2e_tests 2>&1 | grep -c "No such"; python -c "import sys; print(sys.prefix)"')).output.trim().split('\n')).toEqual(['__init__.py', 'test_1.py', 'test_2.py', '2', '/testbed/.venv']);
      await e.terminal.run("sed -i 's/full_name\\[i:\\]/full_name[i+2:]/' xmltodict.py");
      expect((await e.evaluate()).success).toBe(false);
      await e.terminal.run('git checkout -- xmltodict.py');
      const run = await runSolution(e, (await r2egym.solution?.(task)) ?? []);
      expect(run.failedCalls).toEqual([]);
      expect(run.info?.resolved).toBe(true);
    } finally {
      await e.close();
    }
  });
});
