import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import swegym, { swegymImageName, swegymTestCommand } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'swegym-load-'));
const PATCH = 'diff --git a/moto/m.py b/moto/m.py\n--- a/moto/m.py\n+++ b/moto/m.py\n@@ -1,2 +1,2 @@\n def f(x):\n-    return x - 1\n+    return x + 1\n';
const TEST_PATCH = 'diff --git a/tests/test_m.py b/tests/test_m.py\n--- a/tests/test_m.py\n+++ b/tests/test_m.py\n@@ -1,2 +1,5 @@\n def test_g():\n     pass\n+\n+def test_f_adds_one():\n+    assert f(1) == 2\n';

function row(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    repo: 'getmoto/moto',
    instance_id: `getmoto__moto-${5000 + index}`,
    base_commit: 'c'.repeat(40),
    patch: PATCH,
    test_patch: TEST_PATCH,
    problem_statement: `f is off by two (${index})`,
    hints_text: '',
    created_at: '2023-01-01T00:00:00Z',
    version: '4.1',
    FAIL_TO_PASS: ['tests/test_m.py::test_f_adds_one'],
    PASS_TO_PASS: ['tests/test_m.py::test_g'],
    environment_setup_commit: 'c'.repeat(40),
    ...overrides,
  };
}
const run = (output: string) => ({ output, exitCode: 0, timedOut: false, durationMs: 1, timeoutMs: 1000 });

describe("SWE-Gym's harness (SWE-Gym/SWE-Bench-Fork)", () => {
  it("make_test_command: test_cmd of the repository's version + the test patch's files; mypy: the [case …] names as one -k", () => {
    expect(swegymTestCommand({ repo: 'getmoto/moto', version: '4.1', test_patch: TEST_PATCH })).toBe('pytest -n0 -rA tests/test_m.py');
    // MONAI's test_cmd ends with a space upstream ("pytest -rA "), so the joined command has two.
    expect(swegymTestCommand({ repo: 'Project-MONAI/MONAI', version: '1.2', test_patch: TEST_PATCH })).toBe('pytest -rA  tests/test_m.py');
    const mypy = 'diff --git a/test-data/unit/check-x.test b/test-data/unit/check-x.test\n+[case testOne]\n+[case testTwo-skip]\n';
    expect(swegymTestCommand({ repo: 'python/mypy', version: '1.8', test_patch: mypy })).toBe('pytest -rA -k "testOne or testTwo-skip"');
    expect(swegymTestCommand({ repo: 'python/mypy', version: '0.990', test_patch: mypy })).toBe('pytest -n0 -rA -k "testOne or testTwo-skip"');
    // A repository outside the table: the fork's TEST_PYTEST.
    expect(swegymTestCommand({ repo: 'martinblech/xmltodict', version: '0.13', test_patch: TEST_PATCH })).toBe('pytest -rA tests/test_m.py');
  });

  it("images as OpenHands names SWE-Gym's: xingyaoww/sweb.eval.x86_64.<id, __ → _s_>, lowercased", () => {
    expect(swegymImageName('Project-MONAI__MONAI-3715')).toBe('xingyaoww/sweb.eval.x86_64.project-monai_s_monai-3715:latest');
    expect(swegymImageName('getmoto__moto-5000', { namespace: 'Mirror.local/x' })).toBe('mirror.local/x/sweb.eval.x86_64.getmoto_s_moto-5000:latest');
  });
});

describe('loading SWE-Gym instances', () => {
  it("a task: SWE-Gym's image and command, bench-swebench's evaluation and grading (XFAIL passes, a missing test fails)", async () => {
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, [row(0), row(1, { FAIL_TO_PASS: JSON.stringify(['tests/test_m.py::test_f_adds_one']) })].map((r) => JSON.stringify(r)).join('\n') + '\n');
    const dataset = await swegym.loadTasks({ dataPath: file, cacheDir: dir });
    expect(dataset.tasks.map((task) => task.id)).toEqual(['getmoto__moto-5000', 'getmoto__moto-5001']);
    const task = dataset.tasks[0]!;
    expect(task.benchmark).toBe('swegym');
    expect(task.entrypoint).toBe('pytest -n0 -rA tests/test_m.py');
    expect(task.docker).toMatchObject({ image: 'xingyaoww/sweb.eval.x86_64.getmoto_s_moto-5000:latest', workdir: '/testbed', required: true });
    expect(task.goldPatch).toBe(PATCH);
    expect(await swegym.solution?.(task)).toEqual([{ name: 'rewrite', arguments: { path: 'moto/m.py', start: 1, end: 2, new_code: 'def f(x):\n    return x + 1' } }]);
    // SWE-bench's get_eval_report: PASSED or XFAIL pass; FAILED, ERROR or absent fail; resolved when every F2P and P2P test passes.
    expect(task.scorer?.(run('PASSED tests/test_m.py::test_f_adds_one\nXFAIL tests/test_m.py::test_g\n'))).toMatchObject({ success: true, score: 1, details: { status: 'RESOLVED_FULL' } });
    expect(task.scorer?.(run('PASSED tests/test_m.py::test_f_adds_one\n'))).toMatchObject({ success: false, score: 0, details: { status: 'RESOLVED_NO' } });
    expect(task.scorer?.(run('FAILED tests/test_m.py::test_f_adds_one - assert 0 == 2\nPASSED tests/test_m.py::test_g\n'))).toMatchObject({ success: false, details: { status: 'RESOLVED_NO' } });
    expect((await swegym.secrets?.(task))?.map((secret) => secret.label)).toEqual(['hidden tests (test patch)', 'gold patch']);
  });

  it('selects by id, repo: and re:; an unknown id is DG_BENCH_UNKNOWN_TASK; a broken row is left out with its line', async () => {
    const file = join(dir, 'select.jsonl');
    writeFileSync(file, [row(0), row(1, { repo: 'python/mypy', instance_id: 'python__mypy-1' }), '{oops', row(2, { version: undefined }), row(3)].map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n'));
    const ids = async (tasks?: string[]) => (await swegym.loadTasks({ dataPath: file, cacheDir: dir, ...(tasks ? { tasks } : {}) })).tasks.map((task) => task.id);
    expect(await ids(['repo:python/mypy'])).toEqual(['python__mypy-1']);
    expect(await ids(['re:moto-500[03]$'])).toEqual(['getmoto__moto-5000', 'getmoto__moto-5003']);
    expect(await ids(['getmoto__moto-5003', 'python__mypy-1'])).toEqual(['getmoto__moto-5003', 'python__mypy-1']);
    await expect(ids(['nope'])).rejects.toMatchObject({ code: 'DG_BENCH_UNKNOWN_TASK' });
    const dataset = await swegym.loadTasks({ dataPath: file, cacheDir: dir });
    expect(dataset.complete).toBe(false);
    expect(dataset.warnings.join('\n')).toMatch(/line 3 is not valid JSON[\s\S]*line 4 \(getmoto__moto-5002\): field 'version'/);
  });
});

describe('the Hugging Face default (the Hub mocked by a local server: no network here)', () => {
  let server: Server;
  let endpoint = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/api/datasets/SWE-Gym/SWE-Gym/tree/main/data') response.end(JSON.stringify([{ type: 'file', path: 'data/train-00000-of-00001.parquet' }]));
      else if (request.url === '/datasets/SWE-Gym/SWE-Gym/resolve/main/data/train-00000-of-00001.parquet') response.end([row(0), row(1)].map((r) => JSON.stringify(r)).join('\n'));
      else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('SWE-Gym/SWE-Gym (train) is downloaded once; unpinned and partial are said; offline, the exact remedy', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'swegym-hub-'));
    process.env.HF_ENDPOINT = endpoint;
    try {
      const dataset = await swegym.loadTasks({ cacheDir });
      expect(dataset.tasks.map((task) => task.id)).toEqual(['getmoto__moto-5000', 'getmoto__moto-5001']);
      expect(dataset.complete).toBe(false);
      expect(dataset.expectedCount).toBe(2438);
      expect(dataset.warnings.join('\n')).toMatch(/not pinned[\s\S]*2438 instances; 2 are usable/);
      await expect(swegym.loadTasks({ cacheDir: mkdtempSync(join(tmpdir(), 'swegym-hub-')), download: false })).rejects.toMatchObject({ code: 'DG_BENCH_DATA', message: expect.stringMatching(/--data-path/) });
    } finally {
      delete process.env.HF_ENDPOINT;
    }
  });
});
