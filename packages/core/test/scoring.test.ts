import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, test } from 'vitest';
import { localBackend, createTestEnv, testdir, type Backend } from '../../../tools/test-utils/src/index.js';
import {
  MAX_REPORT_LINE_BYTES,
  parsePytestReport,
  parsePytestReportBytes,
  pytestArguments,
  pytestScorer,
  readPristineInventory,
  isProtectedPath,
  testTreeOf,
  scorePytestReport,
  type PytestReport,
  type RepoEnv,
  type StructuredPytestRun,
} from '../src/index.js';

const local: Backend = localBackend;

/** A report as the launcher writes it: sealed after its finished record (`sealed: false` leaves that out). */
function report(lines: object[], { sealed = true } = {}): PytestReport {
  const finished = lines.some((line) => (line as { type?: string }).type === 'finished');
  return parsePytestReport([...lines, ...(sealed && finished ? [{ type: 'sealed' }] : [])].map((line) => JSON.stringify(line)).join('\n'));
}

const FLIP = '@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = "passed"\n';

const FINISHED = { type: 'finished', exitstatus: 0, candidates: [], setAside: [], rootdir: '.', tampered: [] };

describe('pytestArguments', () => {
  test.each([
    ['/py -m pytest -sq .', ' -sq .'],
    ['/py -m pytest', ''],
    ['/py -m pytest --tb=no -s test.py', ' --tb=no -s test.py'],
  ])('%j runs pytest: scored from the report', (entrypoint, args) => {
    expect(pytestArguments(entrypoint, '/py')).toBe(args);
  });

  test.each(['/py app.py', '/py -m pytestx', 'bash run.sh', '/py -m pytest . && echo ok', '/py -m pytest $(cat args)', '/py -m pytest . > log'])(
    '%j does not: scored from its output',
    (entrypoint) => {
      expect(pytestArguments(entrypoint, '/py')).toBeNull();
    },
  );
});

describe('parsePytestReport', () => {
  test('a finished report without its seal, or written to after it, is tampering', () => {
    expect(report([FINISHED]).finished?.tampered).toEqual([]);
    expect(report([FINISHED], { sealed: false }).finished?.tampered).toEqual([expect.stringMatching(/not sealed at exit/)]);
    const appended = parsePytestReport([FINISHED, { type: 'sealed' }, { type: 'test', id: 'a', outcome: 'passed' }].map((line) => JSON.stringify(line)).join('\n'));
    expect(appended.finished?.tampered).toEqual([expect.stringMatching(/after debug-gym sealed it/)]);
    expect(appended.tests.size).toBe(0);
  });

  it('reads tests, collection errors and the final record', () => {
    const parsed = report([
      { type: 'test', id: 'a.py::t', outcome: 'passed' },
      { type: 'test', id: 'a.py::u', outcome: 'bogus' },
      { type: 'collect_error', id: 'b.py' },
      { ...FINISHED, exitstatus: 1, setAside: ['conftest.py', 3] },
    ]);
    expect([...parsed.tests]).toEqual([['a.py::t', 'passed']]);
    expect(parsed.collectErrors).toEqual(['b.py']);
    expect(parsed.finished).toMatchObject({ exitstatus: 1, setAside: ['conftest.py'], rootdir: '.' });
  });

  it('treats a truncated report as unfinished', () => {
    const text = `${JSON.stringify(FINISHED)}\n{"type": "te`;
    expect(parsePytestReport(text).finished).toBeNull();
  });
});

describe('parsePytestReportBytes (what a scoring run uses)', () => {
  const encode = (lines: object[]): Uint8Array => Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n'));

  it('reads what parsePytestReport reads', async () => {
    const lines = [{ type: 'test', id: 'a.py::t', outcome: 'passed' }, { type: 'collect_error', id: 'b.py' }, FINISHED, { type: 'sealed' }];
    expect(await parsePytestReportBytes(encode(lines))).toEqual(parsePytestReport(lines.map((line) => JSON.stringify(line)).join('\n')));
    expect((await parsePytestReportBytes(encode([FINISHED]))).finished?.tampered).toEqual([expect.stringMatching(/not sealed at exit/)]);
    expect((await parsePytestReportBytes(Buffer.from(`${JSON.stringify(FINISHED)}\n{"type": "te`))).finished).toBeNull();
  });

  it('gives the event loop a turn every 256 KiB of a report the code under test inflated (the cap is 64 MiB), so no other session waits on it', async () => {
    const line = `${JSON.stringify({ type: 'test', id: `t.py::${'x'.repeat(900)}`, outcome: 'passed' })}\n`;
    const bytes = Buffer.from(line.repeat(Math.floor((8 * 1024 * 1024) / line.length)));
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    const parsed = await parsePytestReportBytes(bytes);
    counting = false;
    expect(parsed.tests.size).toBe(1); // one id, written again and again
    expect(turns).toBeGreaterThanOrEqual(Math.floor(bytes.length / (256 * 1024)) - 1);
  });

  it('does not parse a line longer than the launcher ever writes: the report is tampered and scores 0', async () => {
    const huge = Buffer.from(`${JSON.stringify({ type: 'test', id: 'x'.repeat(MAX_REPORT_LINE_BYTES), outcome: 'passed' })}\n${JSON.stringify(FINISHED)}\n{"type":"sealed"}`);
    const parsed = await parsePytestReportBytes(huge);
    expect(parsed.tests.size).toBe(0);
    expect(parsed.finished?.tampered).toEqual([expect.stringMatching(/a line over 1048576 bytes/)]);
    expect(scorePytestReport({ report: parsed, expected: { ids: ['t.py::t'], modules: [] }, restored: [] }, 0)).toMatchObject({ score: 0 });
  });
});

describe('scorePytestReport', () => {
  const structured = (lines: object[], extra: Partial<StructuredPytestRun> = {}): StructuredPytestRun => ({ report: report(lines), expected: null, restored: [], ...extra });

  it('counts passed tests out of the tests that ran', () => {
    const scored = scorePytestReport(
      structured([{ type: 'test', id: 'a::x', outcome: 'passed' }, { type: 'test', id: 'a::y', outcome: 'failed' }, { type: 'test', id: 'a::z', outcome: 'xfailed' }, { ...FINISHED, exitstatus: 1 }]),
      1,
    );
    expect(scored).toMatchObject({ score: 1, maxScore: 3, success: false, notes: [] });
    expect(scored.details).toMatchObject({ passed: 1, failed: 1, xfailed: 1, total: 3 });
  });

  it('scores 0 without a final record, whatever the exit code', () => {
    const scored = scorePytestReport({ report: null, expected: { ids: ['a::x'], modules: [] }, restored: [] }, 0);
    expect(scored).toMatchObject({ score: 0, maxScore: 1, success: false });
    expect(scored.notes.join()).toMatch(/before pytest reported its results/);
  });

  it('scores 0 when the process exit code disagrees with pytest exit status', () => {
    const scored = scorePytestReport(structured([{ type: 'test', id: 'a::x', outcome: 'failed' }, { ...FINISHED, exitstatus: 1 }]), 0);
    expect(scored).toMatchObject({ score: 0, success: false });
    expect(scored.notes.join()).toMatch(/exit status 1 but its process exited with 0/);
  });

  it('scores 0 when the plugin saw tampering', () => {
    const scored = scorePytestReport(structured([{ type: 'test', id: 'a::x', outcome: 'passed' }, { ...FINISHED, tampered: ['x was replaced'] }]), 0);
    expect(scored).toMatchObject({ score: 0, maxScore: null, success: false });
    expect(scored.notes.join()).toMatch(/tampering with the test run, so it scores 0: x was replaced/);
  });

  it('keeps the max score unknown after a collection error', () => {
    const scored = scorePytestReport(structured([{ type: 'collect_error', id: 'a.py' }, { ...FINISHED, exitstatus: 2 }]), 2);
    expect(scored).toMatchObject({ score: 0, maxScore: null, success: false });
    expect(scored.details.collectionError).toBe(true);
  });

  it('counts expected tests that did not run as failed, and ignores tests the agent added', () => {
    const scored = scorePytestReport(
      structured([{ type: 'test', id: 'a::x', outcome: 'passed' }, { type: 'test', id: 'new::t', outcome: 'passed' }, FINISHED], {
        expected: { ids: ['a::x', 'a::y'], modules: [] },
        restored: ['a'],
      }),
      0,
    );
    expect(scored).toMatchObject({ score: 1, maxScore: 2, success: false });
    expect(scored.notes.join('\n')).toMatch(/restored these protected files[^\n]*: a\.\n.*did not run, so they count as failed: a::y\./);
  });

  it('counts every test of a module that did not collect on the pristine repository', () => {
    const lines = [{ type: 'test', id: 'm.py::a', outcome: 'passed' }, { type: 'test', id: 'm.py::b', outcome: 'passed' }, FINISHED];
    expect(scorePytestReport(structured(lines, { expected: { ids: [], modules: ['m.py'] } }), 0)).toMatchObject({ score: 2, maxScore: 2, success: true });
    const none = scorePytestReport(structured([FINISHED], { expected: { ids: [], modules: ['m.py'] } }), 0);
    expect(none).toMatchObject({ score: 0, maxScore: 1, success: false });
  });

  it('reaches the agent through pytestScorer, after the output', () => {
    const run = { output: '1 passed in 0.01s\n', exitCode: 0, timedOut: false, durationMs: 1, timeoutMs: 1000 };
    const lines = [{ type: 'test', id: 'a::x', outcome: 'passed' }, { ...FINISHED, setAside: ['conftest.py'] }];
    const scored = pytestScorer({ ...run, structured: structured(lines) });
    expect(scored.output).toMatch(/^1 passed in 0\.01s\n\ndebug-gym set these files aside during the test run[^\n]*: conftest\.py\./);
    expect(pytestScorer({ ...run, structured: structured(lines.slice(0, 1).concat(FINISHED)) }).output).toBe(run.output);
  });
});

describe('readPristineInventory', () => {
  it('finds test files, configuration, read-only files and the plugin candidates of the pristine repository', () => {
    const dir = testdir({
      'test_a.py': 'A',
      'pkg/b_test.py': 'B',
      'pkg/conftest.py': 'C',
      'setup.cfg': 'S',
      'data.txt': 'D',
      'locked.txt': 'L',
      'app.py': 'X',
      '.git/conftest.py': 'G',
    });
    const inventory = readPristineInventory(dir, (relative) => relative === 'locked.txt');
    expect([...inventory.files.keys()].sort()).toEqual(['locked.txt', 'pkg/b_test.py', 'pkg/conftest.py', 'setup.cfg', 'test_a.py']);
    expect(inventory.candidates.sort()).toEqual(['pkg/conftest.py', 'setup.cfg']);
  });
});

describe('test folders (everything the tests are made of)', () => {
  it('are the nearest tests/, test/ or testing/ above a test file; a test file beside the code has none', () => {
    expect(testTreeOf('tests/test_app.py')).toBe('tests');
    expect(testTreeOf('tests/unit/test_app.py')).toBe('tests');
    expect(testTreeOf('numpy/testing/tests/test_utils.py')).toBe('numpy/testing/tests');
    expect(testTreeOf('src/Test/test_x.py')).toBe('src/Test');
    expect(testTreeOf('test_app.py')).toBeNull();
    expect(testTreeOf('pkg/test_app.py')).toBeNull();
  });

  it('protect every file of the folder (helpers, __init__.py, data), and only that folder', () => {
    const dir = testdir({
      'app.py': 'X',
      'expected.json': '{}',
      'tests/__init__.py': '',
      'tests/test_app.py': 'T',
      'tests/helpers.py': 'H',
      'tests/data/expected.json': '{}',
      'tests/__pycache__/helpers.cpython-311.pyc': 'P',
      'lib/testing/util.py': 'U',
      'lib/testing/tests/test_util.py': 'T',
    });
    const inventory = readPristineInventory(dir, () => false);
    expect(inventory.trees.sort()).toEqual(['lib/testing/tests', 'tests']);
    expect([...inventory.treeFiles].sort()).toEqual(['lib/testing/tests/test_util.py', 'tests/__init__.py', 'tests/data/expected.json', 'tests/helpers.py', 'tests/test_app.py']);
    expect([...inventory.files.keys()].sort()).toEqual([...inventory.treeFiles].sort());
    // A symlink in the folder is one of its files (never set aside), not snapshotted or followed.
    symlinkSync('helpers.py', join(dir, 'tests', 'alias.py'));
    const withLink = readPristineInventory(dir, () => false);
    expect(withLink.treeFiles.has('tests/alias.py')).toBe(true);
    expect(withLink.files.has('tests/alias.py')).toBe(false);
    expect(isProtectedPath(inventory, 'tests/new_helper.py')).toBe(true);
    expect(isProtectedPath(inventory, 'tests/data/expected.json')).toBe(true);
    expect(isProtectedPath(inventory, 'lib/testing/util.py')).toBe(false);
    expect(isProtectedPath(inventory, 'app.py')).toBe(false);
    expect(isProtectedPath(inventory, 'expected.json')).toBe(false);
    // A module file that `import tests` would load instead of the folder (without __init__.py) is protected too.
    for (const shadow of ['tests.py', 'lib/tests.pyc', 'Testing.py', 'test.cpython-311-x86_64-linux-gnu.so']) expect(isProtectedPath(inventory, shadow), shadow).toBe(true);
    expect(isProtectedPath(inventory, 'tests_util.py')).toBe(false);
  });
});

describe('guarded scoring on the local backend', () => {
  const envs: RepoEnv[] = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });

  const FILES = {
    'app.py': 'def f():\n    return 1\n',
    'tests/check_app.py': 'from app import f\n\ndef test_f():\n    assert f() == 1\n',
  };

  it("restores a test folder's helpers and data, and sets aside a file added there, for the scoring run", async () => {
    const files = {
      'app.py': 'def add(a, b):\n    return a - b\n',
      'tests/__init__.py': '',
      'tests/helpers.py': 'import json, os\n\ndef expected():\n    with open(os.path.join(os.path.dirname(__file__), "expected.json")) as f:\n        return json.load(f)\n',
      'tests/expected.json': '[[1, 2, 3], [0, 0, 0]]\n',
      'tests/test_app.py': 'from app import add\nfrom tests.helpers import expected\n\ndef test_add():\n    for a, b, want in expected():\n        assert add(a, b) == want\n\ndef test_truth():\n    assert True\n',
    };
    const env = createTestEnv(local, { files, entrypoint: 'python -m pytest -q' });
    envs.push(env);
    expect(await env.reset()).toMatchObject({ score: 1, maxScore: 2 });
    await env.terminal.writeFile('tests/expected.json', '[[1, 2, -1], [0, 0, 0]]\n');
    await env.terminal.writeFile('tests/helpers.py', 'def expected():\n    return []\n');
    await env.terminal.writeFile('tests/conftest_like.py', '');
    const forged = await env.evaluate();
    expect(forged, forged.output).toMatchObject({ score: 1, success: false });
    expect(forged.output).toMatch(/restored these protected files[^\n]*tests\/expected\.json, tests\/helpers\.py/);
    expect(forged.output).toMatch(/set these files aside[^\n]*tests\/conftest_like\.py/);
    // Restored in the working copy too, and the set-aside file is back where the agent put it.
    expect(Buffer.from(await env.terminal.readFile('tests/expected.json')).toString()).toBe(files['tests/expected.json']);
    expect(await env.terminal.stat('tests/conftest_like.py')).toMatchObject({ type: 'file' });
    await env.terminal.writeFile('app.py', 'def add(a, b):\n    return a + b\n');
    expect(await env.evaluate()).toMatchObject({ score: 2, maxScore: 2, success: true });
  });

  it('protects a test file named outside pytest patterns, from the ids the reset run collected', async () => {
    const env = createTestEnv(local, { files: FILES, entrypoint: 'python -m pytest -q tests/check_app.py' });
    envs.push(env);
    expect(await env.reset()).toMatchObject({ score: 1, maxScore: 1 });
    await env.terminal.writeFile('tests/check_app.py', 'def test_f():\n    assert False\n');
    const result = await env.evaluate();
    expect(result).toMatchObject({ score: 1, maxScore: 1, success: true });
    expect(result.output).toMatch(/restored these protected files[^\n]*tests\/check_app\.py/);
  });

  it("allows the pristine repository's own plugin modules, and restores them like conftest.py", async () => {
    const files = {
      'app.py': 'def f():\n    return 2\n',
      'conftest.py': 'pytest_plugins = ["helpers.fixtures"]\n',
      'helpers/__init__.py': '',
      'helpers/fixtures.py': 'import pytest\n\n@pytest.fixture\ndef one():\n    return 1\n',
      'test_app.py': 'from app import f\n\ndef test_f(one):\n    assert f() == one\n',
    };
    const env = createTestEnv(local, { files });
    envs.push(env);
    expect(await env.reset()).toMatchObject({ score: 0, maxScore: 1 });
    await env.terminal.writeFile('helpers/fixtures.py', `${files['helpers/fixtures.py']}\n${FLIP}`);
    const forged = await env.evaluate();
    expect(forged).toMatchObject({ score: 0, maxScore: 1, success: false });
    expect(forged.output).toMatch(/restored these protected files[^\n]*helpers\/fixtures\.py/);
    await env.terminal.writeFile('app.py', 'def f():\n    return 1\n');
    const fixed = await env.evaluate();
    expect(fixed, fixed.output).toMatchObject({ score: 1, maxScore: 1, success: true });
    expect(fixed.output).not.toMatch(/debug-gym/);
  });

  it('puts set-aside files back even when the run times out', async () => {
    const env = createTestEnv(local, { files: FILES, runTimeout: 3, entrypoint: 'pytest -q tests/check_app.py' });
    envs.push(env);
    await env.reset();
    await env.terminal.writeFile('conftest.py', '# mine\n');
    await env.terminal.writeFile('app.py', 'import time\ntime.sleep(60)\n');
    const result = await env.evaluate();
    expect(result).toMatchObject({ timedOut: true, score: 0 });
    expect(Buffer.from(await env.terminal.readFile('conftest.py')).toString()).toBe('# mine\n');
  });

  it('scores from the output when guarded scoring is off', async () => {
    const env = createTestEnv(local, { files: FILES, guardedScoring: false, entrypoint: 'python -m pytest -q tests/check_app.py' });
    envs.push(env);
    await env.reset();
    await env.terminal.writeFile('app.py', 'def f():\n    return 2\n');
    await env.terminal.writeFile('tests/check_app.py', 'def test_f():\n    pass\n');
    const result = await env.evaluate();
    expect(result).toMatchObject({ score: 1, success: true });
    expect(result.output).not.toMatch(/debug-gym/);
  });
});
