/**
 * A SWE-bench instance that needs no download: a small git repository with a bug at its base
 * commit, a test patch (one test file changed, one added) and a gold patch, built into an image
 * from the offline base image (the same recipe as bench-swebench's Docker test).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchmarkTask, BenchmarkV1 } from '@debug-gym/core';
import swebench from '@debug-gym/bench-swebench';

const BUGGY = 'def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n';
const FIXED = BUGGY.replace('def add(a, b):\n    return a - b', 'def add(a, b):\n    return a + b');
const BASE_TESTS = 'from calc.ops import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n';
const HIDDEN_TESTS = `${BASE_TESTS.replace('import sub', 'import add, sub')}\n\ndef test_add():\n    assert add(2, 3) == 5\n`;
const NEW_TEST_FILE = 'from calc.ops import add, mul\n\n\ndef test_mul_and_add():\n    assert mul(add(1, 1), 3) == 6\n';

export interface SyntheticSwebench {
  benchmark: BenchmarkV1;
  task: BenchmarkTask;
  image: string;
}

export async function syntheticSwebenchTask(baseImage = process.env.DEBUG_GYM_DOCKER_IMAGE ?? 'debug-gym/python-offline:bookworm'): Promise<SyntheticSwebench> {
  const git = (cwd: string, ...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=validate', '-c', 'user.email=validate@example.com', ...args], { cwd, encoding: 'utf8' });
  const context = mkdtempSync(join(tmpdir(), 'validate-swebench-'));
  const repo = join(context, 'testbed');
  mkdirSync(join(repo, 'calc'), { recursive: true });
  mkdirSync(join(repo, 'tests'));
  writeFileSync(join(repo, 'calc', '__init__.py'), '');
  writeFileSync(join(repo, 'conftest.py'), '');
  writeFileSync(join(repo, 'calc', 'ops.py'), BUGGY);
  writeFileSync(join(repo, 'tests', 'test_ops.py'), BASE_TESTS);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'base');
  const baseCommit = git(repo, 'rev-parse', 'HEAD').trim();
  writeFileSync(join(repo, 'tests', 'test_ops.py'), HIDDEN_TESTS);
  writeFileSync(join(repo, 'tests', 'test_new.py'), NEW_TEST_FILE);
  git(repo, 'add', '-A');
  const testPatch = git(repo, 'diff', '--cached');
  git(repo, 'reset', '-q', '--hard');
  writeFileSync(join(repo, 'calc', 'ops.py'), FIXED);
  const goldPatch = git(repo, 'diff');
  git(repo, 'checkout', '-q', '--', '.');
  const image = 'debug-gym/validate-swebench-synthetic:latest';
  writeFileSync(join(context, 'Dockerfile'), `FROM ${baseImage}\nCOPY testbed /testbed\nWORKDIR /testbed\n`);
  execFileSync('docker', ['build', '-q', '-t', image, context], { stdio: 'pipe' });
  const row = {
    instance_id: 'synthetic__calc-1',
    repo: 'synthetic/calc',
    base_commit: baseCommit,
    patch: goldPatch,
    test_patch: testPatch,
    problem_statement: 'add() subtracts its arguments.',
    version: '0.1',
    FAIL_TO_PASS: JSON.stringify(['tests/test_ops.py::test_add', 'tests/test_new.py::test_mul_and_add']),
    PASS_TO_PASS: JSON.stringify(['tests/test_ops.py::test_sub']),
  };
  writeFileSync(join(context, 'instances.jsonl'), `${JSON.stringify(row)}\n`);
  const dataset = await swebench.loadTasks({ dataPath: join(context, 'instances.jsonl'), cacheDir: context, download: false });
  return { benchmark: swebench, task: dataset.tasks[0] as BenchmarkTask, image };
}
