import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type Terminal } from '@debug-gym/core';
import { DockerTerminal } from '@debug-gym/terminal';
import { availableBackends, testDockerImage, testPython } from '@debug-gym/test-utils';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swesmith, { buildOfflineInstances, type OfflineDataset } from '../../src/index.js';

/**
 * Real instances over a real project: xmltodict from Debian's `python-xmltodict` source package
 * (its own 74 tests), bugs applied as SWE-smith's procedural modifiers write them, FAIL_TO_PASS /
 * PASS_TO_PASS from real pytest runs with and without each bug (SWE-smith's get_valid_report).
 */
const backends = await availableBackends();
const sandbox = backends.find((backend) => backend.name === 'bubblewrap') ?? backends.find((backend) => backend.name === 'local');
const docker = backends.some((backend) => backend.name === 'docker');
const namespace = `debug-gym-test-${process.pid}`;
let built: OfflineDataset;
let localTasks: BenchmarkTask[] = [];
let imageTasks: BenchmarkTask[] = [];

beforeAll(async () => {
  const source = execFileSync('bash', [join(import.meta.dirname, '..', '..', 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
  const out = mkdtempSync(join(tmpdir(), 'swesmith-offline-'));
  built = buildOfflineInstances({ sourceDir: source, outDir: out, python: testPython, ...(docker ? { baseImage: testDockerImage, namespace } : {}) });
  localTasks = (await swesmith.loadTasks({ dataPath: built.localJsonl, cacheDir: out })).tasks;
  imageTasks = (await swesmith.loadTasks({ dataPath: built.jsonl, cacheDir: out, options: { namespace } })).tasks;
}, 300_000);

afterAll(() => {
  if (built?.image) execFileSync('docker', ['rmi', '-f', built.image], { stdio: 'ignore' });
});

function env(task: BenchmarkTask, terminal: Terminal): RepoEnv {
  return new RepoEnv({ ...taskEnvOptions(task), runTimeout: 120, terminal, tools: [rewriteTool, evalTool] });
}

describe('the offline instances', () => {
  it('are in SWE-smith\'s exact schema, with FAIL_TO_PASS / PASS_TO_PASS from real runs', () => {
    expect(built.rows).toHaveLength(3);
    for (const row of built.rows) {
      expect(Object.keys(row).sort()).toEqual(['FAIL_TO_PASS', 'PASS_TO_PASS', 'base_commit', 'created_at', 'image_name', 'instance_id', 'patch', 'problem_statement', 'repo']);
      expect(row.image_name).toBe('swesmith.x86_64.martinblech__xmltodict.0952f382');
      expect(row.instance_id).toMatch(/^martinblech__xmltodict\.0952f382\.func_pm_[a-z_]+__[a-z0-9]{8}$/);
      expect((row.FAIL_TO_PASS as string[]).length).toBeGreaterThan(0);
      expect((row.FAIL_TO_PASS as string[]).length + (row.PASS_TO_PASS as string[]).length).toBe(74);
      expect(row.FAIL_TO_PASS).toEqual(expect.arrayContaining([expect.stringMatching(/^tests\/test_(xmltodict|dicttoxml)\.py::\w+::test_\w+$/)]));
    }
    expect(readFileSync(built.localJsonl, 'utf8')).toContain('"repo_path":"repos/martinblech__xmltodict"');
  });
});

describe.skipIf(!sandbox)(`a local-folder instance on the ${sandbox?.name} terminal (real pytest)`, () => {
  it('no-op: unresolved; the bug is the only commit and the fix is nowhere in the sandbox', async () => {
    const task = localTasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      const info = await e.reset();
      expect(info.resolved).toBe(false);
      expect(info.score).toBe(0);
      expect(info.maxScore).toBe((task.metadata?.FAIL_TO_PASS as string[]).length);
      expect((await e.terminal.run('git log --oneline | wc -l')).output.trim()).toBe('1');
      expect((await e.terminal.run('git status --porcelain')).output.trim()).toBe('');
      expect(info.stepObservation.observation).not.toMatch(/Setup command failed/);
      const [secret] = (await swesmith.secrets?.(task)) ?? [];
      expect(secret?.marker).toBe('if isinstance(value, list):');
      expect((await e.terminal.run(`grep -rF 'if isinstance(value, list):' . | wc -l`)).output.trim()).toBe('0');
    } finally {
      await e.close();
    }
  });

  it('gold (reverse of the bug patch): resolved, through git apply and through the solution agent\'s rewrite calls', async () => {
    for (const task of localTasks) {
      const e = env(task, sandbox!.create());
      try {
        await e.reset();
        expect(await e.applyGoldPatch()).toMatchObject({ applied: true });
        const result = await e.evaluate();
        expect(result.details, task.id).toMatchObject({ status: 'RESOLVED_FULL' });
        expect(result.success).toBe(true);
        expect(result.score).toBe(result.maxScore);
      } finally {
        await e.close();
      }
    }
    const task = localTasks[1] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      const run = await runSolution(e, (await swesmith.solution?.(task)) ?? []);
      expect(run.failedCalls).toEqual([]);
      expect(run.info?.resolved).toBe(true);
    } finally {
      await e.close();
    }
  });

  it('a wrong fix (another line changed, or the tests edited to pass) stays unresolved', async () => {
    const task = localTasks[0] as BenchmarkTask;
    const e = env(task, sandbox!.create());
    try {
      await e.reset();
      // Changes a line near the bug, leaving the bug in place.
      const rewritten = await e.step({ name: 'rewrite', arguments: { path: 'xmltodict.py', start: 1, end: 1, new_code: '#!/usr/bin/env python\n# patched' } });
      expect(rewritten.resolved).toBe(false);
      // Weakening the failing test: the evaluation puts the test files back first.
      const f2p = (task.metadata?.FAIL_TO_PASS as string[])[0] as string;
      const testFile = f2p.split('::')[0] as string;
      await e.terminal.run(`printf 'def test_nothing():\\n    pass\\n' > ${testFile}`);
      const result = await e.evaluate();
      expect(result.success).toBe(false);
      expect(result.details).toMatchObject({ status: expect.stringMatching(/RESOLVED_(NO|PARTIAL)/) });
      // The original test file was put back before the run, and its FAIL_TO_PASS test failed.
      expect((await e.terminal.run(`git status --porcelain -- ${testFile}`)).output.trim()).toBe('');
      expect((result.details as { tests_status: { FAIL_TO_PASS: { failure: string[] } } }).tests_status.FAIL_TO_PASS.failure).toContain(f2p);
    } finally {
      await e.close();
    }
  });
});

describe.skipIf(!docker)('an image instance on Docker (the repository in the image at /testbed)', () => {
  it('no-op unresolved, gold resolved; the image is the one the image name names', async () => {
    const task = imageTasks[2] as BenchmarkTask;
    expect(task.docker?.image).toBe(`${namespace}/swesmith.x86_64.martinblech_1776_xmltodict.0952f382:latest`);
    const e = env(task, new DockerTerminal({ image: task.docker?.image as string, workdir: '/testbed', python: 'python3', env: {} }));
    try {
      const start = await e.reset();
      expect(start.resolved).toBe(false);
      expect((await e.terminal.run('git log --format=%s')).output.trim()).toBe(`SWE-smith task ${task.id}`);
      const run = await runSolution(e, (await swesmith.solution?.(task)) ?? []);
      expect(run.failedCalls).toEqual([]);
      expect(run.info?.resolved).toBe(true);
    } finally {
      await e.close();
    }
  });
});
