import { createTestEnv, localBackend as local } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it, test } from 'vitest';
import type { RepoEnv } from '@debug-gym/core';
import { parseInstance, restoreTestsCommand, swebenchEvaluation, swebenchScorer } from '../src/index.js';

const MODIFY = `diff --git a/test_app.py b/test_app.py
--- a/test_app.py
+++ b/test_app.py
@@ -1,2 +1,5 @@
 def test_old():
     assert True
+
+def test_new():
+    assert False
`;

describe('restoreTestsCommand', () => {
  test.each([
    ['nothing to restore', 'diff --git a/x.json b/x.json\n', null],
    ['a modified file', MODIFY, "git checkout abc -- 'test_app.py'"],
    [
      'a created file with a quote in its name',
      "diff --git a/t/it's_test.py b/t/it's_test.py\nnew file mode 100644\n--- /dev/null\n+++ b/t/it's_test.py\n@@ -0,0 +1 @@\n+x\n",
      "rm -f -- 't/it'\\''s_test.py'",
    ],
  ])('%s', (_name, testPatch, command) => {
    expect(restoreTestsCommand({ base_commit: 'abc', test_patch: testPatch })).toBe(command);
  });
});

const GIT_SETUP = 'git init -q && git add -A && git -c user.name=t -c user.email=t@e commit -qm base';

describe('the SWE-bench evaluation procedure on the local terminal', () => {
  const envs: RepoEnv[] = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });

  async function run(testPatch: string, baseCommit = 'HEAD'): Promise<{ env: RepoEnv; output: string; details: unknown; score: number }> {
    const instance = parseInstance({
      instance_id: 'local__app-1',
      repo: 'local/app',
      base_commit: baseCommit,
      patch: '',
      test_patch: testPatch,
      version: '1',
      FAIL_TO_PASS: ['test_app.py::test_new'],
      PASS_TO_PASS: ['test_app.py::test_old'],
    });
    const env = createTestEnv(local, {
      files: { 'test_app.py': 'def test_old():\n    assert True\n' },
      entrypoint: 'python -m pytest -rA test_app.py',
      setupCommands: [GIT_SETUP],
      evaluation: swebenchEvaluation(instance),
      scorer: swebenchScorer(instance),
    });
    envs.push(env);
    const info = await env.reset();
    return { env, output: info.evalObservation?.observation ?? '', details: info.lastEval?.details, score: info.score };
  }

  it('applies the test patch for the run and restores the file afterwards', async () => {
    const { env, output, details } = await run(MODIFY);
    expect(output).toContain('FAILED test_app.py::test_new');
    expect(details).toMatchObject({ status: 'RESOLVED_NO', tests_status: { PASS_TO_PASS: { success: ['test_app.py::test_old'] } } });
    expect(Buffer.from(await env.terminal.readFile('test_app.py')).toString()).toBe('def test_old():\n    assert True\n');
  });

  it('reports a test patch that does not apply with the harness marker', async () => {
    const { output, details, score } = await run(MODIFY.replace(' def test_old():', ' def test_other():'));
    expect(output).toMatch(/^>>>>> Patch Apply Failed\n/);
    expect(details).toMatchObject({ reason: '>>>>> Patch Apply Failed' });
    expect(score).toBe(0);
  });

  it('reports test files that cannot be restored with the harness marker', async () => {
    const { output } = await run(MODIFY, 'f'.repeat(40));
    expect(output).toMatch(/^>>>>> Reset Failed\n/);
  });
});
