import { seededIntegers } from '@debug-gym/test-utils/linearity';
import { describe, expect, it } from 'vitest';
import {
  MAP_REPO_TO_SPECS,
  dockerImageRef,
  evalTestsReport,
  filterIrrelevantTests,
  imageNameOf,
  parseLogAutograd,
  parseLogGotest,
  gotestLine,
  parseLogMypy,
  parseLogParamiko,
  parseLogPytest,
  parseLogPythonSlugify,
  parseLogTornado,
  parserNameForRepo,
  readTestOutput,
  repoCommitFromImageName,
  resolutionStatus,
  testCommand,
  validReport,
} from '../src/index.js';

describe('image names (swesmith/utils.py)', () => {
  it('get_repo_commit_from_image_name: repo spelled as MAP_REPO_TO_SPECS spells it, full commit from the prefix', () => {
    // Upstream: image_name.split(".", 2)[-1]; repo = rsplit(".", 1)[0].replace("__", "/"), matched lowercase
    // against MAP_REPO_TO_SPECS; the commit is the table's commit that starts with the suffix.
    const found = repoCommitFromImageName('swesmith.x86_64.mimino666__langdetect.a1598f1a');
    expect(found.repo).toBe('Mimino666/langdetect');
    expect(found.commit).toMatch(/^a1598f1a[0-9a-f]{32}$/);
    // Repository names with dots survive (split at most twice, rsplit once).
    expect(repoCommitFromImageName('swesmith.x86_64.pdfminer__pdfminer.six.1a8bd2f7').repo).toBe('pdfminer/pdfminer.six');
    expect(() => repoCommitFromImageName('swesmith.x86_64.nobody__nothing.12345678')).toThrow(/not one of SWE-smith's/);
    expect(() => repoCommitFromImageName('swesmith.x86_64.mimino666__langdetect.ffffffff')).toThrow(/commit ffffffff not found/);
  });

  it('get_image_name and the Docker Hub reference download_images pulls (__ → _1776_)', () => {
    expect(imageNameOf('Mimino666/langdetect', 'a1598f1a0123')).toBe('swesmith.x86_64.mimino666__langdetect.a1598f1a');
    expect(dockerImageRef('swesmith.x86_64.mimino666__langdetect.a1598f1a')).toBe('jyangballin/swesmith.x86_64.mimino666_1776_langdetect.a1598f1a:latest');
  });

  it('the spec table has the 135 repositories of constants.py, with their own test commands', () => {
    expect(MAP_REPO_TO_SPECS.size).toBe(135);
    const spec = (repo: string) => [...(MAP_REPO_TO_SPECS.get(repo)?.values() ?? [])][0];
    expect(spec('tornadoweb/tornado')?.test_cmd).toBe('python -m tornado.test --verbose');
    expect(spec('python/mypy')).toMatchObject({ test_cmd: 'pytest --color=no -rA -k', minimal_testing: true });
    expect(spec('martinblech/xmltodict')?.test_cmd).toBe('pytest --disable-warnings --color=no --tb=no --verbose');
  });
});

describe('get_test_command (harness/utils.py)', () => {
  it('a pytest command gets the FAIL_TO_PASS files appended, once each', () => {
    // Upstream: f2p_files = list(set([x.split("::", 1)[0] for x in instance[FAIL_TO_PASS]])); test_command += " ".join(f2p_files).
    const result = testCommand({ repo: 'pallets/click', testCmd: 'pytest --tb=no', FAIL_TO_PASS: ['tests/a.py::t1', 'tests/b.py::C::t2', 'tests/a.py::t3'] });
    expect(result).toEqual({ command: 'pytest --tb=no tests/a.py tests/b.py', directives: ['tests/a.py', 'tests/b.py'] });
  });

  it('mypy: -k "<case> or <case>" from the FAIL_TO_PASS ids, no directives', () => {
    // Upstream get_test_command_mypy: " or ".join([x.rsplit("::", 1)[-1] for x in instance[FAIL_TO_PASS]]).
    const result = testCommand({ repo: 'python/mypy', testCmd: 'pytest --color=no -rA -k', FAIL_TO_PASS: ['mypy/test/testcheck.py::TypeCheckSuite::check-a.test::testOne', 'x::testTwo'] });
    expect(result).toEqual({ command: 'pytest --color=no -rA -k "testOne or testTwo"', directives: [] });
  });

  it('a command without pytest runs as it is', () => {
    // Upstream: the F2P branch needs "pytest" in the test command; otherwise the whole command.
    expect(testCommand({ repo: 'tornadoweb/tornado', testCmd: 'python -m tornado.test --verbose', FAIL_TO_PASS: ['test_x (tornado.test.a.B)'] })).toEqual({ command: 'python -m tornado.test --verbose', directives: [] });
  });
});

describe('log parsers (harness/log_parsers.py)', () => {
  it('parse_log_pytest: ^(\\S+)(\\s+)STATUS, last status of the enum that matches wins', () => {
    const log = [
      'tests/test_a.py::test_one PASSED                                   [ 25%]',
      'tests/test_a.py::Klass::test_two FAILED                            [ 50%]',
      'tests/test_a.py::test_three XFAIL (reason)                         [ 75%]',
      'tests/test_a.py::test_four SKIPPED (no network)                    [100%]',
      'FAILED tests/test_a.py::Klass::test_two - assert 1 == 2',
      '   indented PASSED',
    ].join('\n');
    expect(parseLogPytest(log)).toEqual({
      'tests/test_a.py::test_one': 'PASSED',
      'tests/test_a.py::Klass::test_two': 'FAILED',
      'tests/test_a.py::test_three': 'XFAIL',
      'tests/test_a.py::test_four': 'SKIPPED',
    });
  });

  it('the other parsers, each on its own log format', () => {
    expect(parseLogGotest('--- PASS: TestA (0.00s)\n    --- FAIL: TestB/sub (0.01s)\n--- SKIP: TestC (0.00s)')).toEqual({ TestA: 'PASSED', 'TestB/sub': 'FAILED', TestC: 'SKIPPED' });
    expect(parseLogMypy('PASSED mypy/test/x.py::testOne\n[gw0] FAILED mypy/test/x.py::testTwo')).toEqual({ 'mypy/test/x.py::testOne': 'PASSED', 'mypy/test/x.py::testTwo': 'FAILED' });
    expect(parseLogPythonSlugify("test_a (test.TestSlugify) ... ok\ntest_b (test.TestSlugify) ... FAIL\ntest_c (test.TestSlugify) ... ERROR")).toEqual({
      'test_a (test.TestSlugify)': 'PASSED',
      'test_b (test.TestSlugify)': 'FAILED',
      'test_c (test.TestSlugify)': 'ERROR',
    });
    // Tornado: ERROR: and FAIL: lines are both FAILED; the test is words 1-2 of the line.
    expect(parseLogTornado('test_a (tornado.test.x.T) ... ok\ntest_b (tornado.test.x.T) ... skipped needs ipv6\nERROR: test_c (tornado.test.x.T)\nFAIL: test_d (tornado.test.x.T)')).toEqual({
      'test_a (tornado.test.x.T)': 'PASSED',
      'test_b (tornado.test.x.T)': 'SKIPPED',
      'test_c (tornado.test.x.T)': 'FAILED',
      'test_d (tornado.test.x.T)': 'FAILED',
    });
    expect(parseLogParamiko('PASSED tests/test_x.py::test_a\nFAILED tests/test_x.py::test_b - boom')).toEqual({ 'tests/test_x.py::test_a': 'PASSED', 'tests/test_x.py::test_b': 'FAILED' });
    expect(parseLogAutograd('[gw1] PASSED tests/test_x.py::test_a \n[gw0] ERROR tests/test_x.py::test_b')).toEqual({ 'tests/test_x.py::test_a': 'PASSED', 'tests/test_x.py::test_b': 'ERROR' });
    expect(parserNameForRepo('HIPS/autograd')).toBe('autograd');
    expect(parserNameForRepo('martinblech/xmltodict')).toBe('pytest');
  });
});

describe('grading (harness/grading.py)', () => {
  const gold = { FAIL_TO_PASS: ['t::f1', 't::f2'], PASS_TO_PASS: ['t::p1', 't::p2'] };

  it('get_eval_tests_report: PASSED/XFAIL pass, FAILED/ERROR fail, SKIPPED counts as neither', () => {
    const report = evalTestsReport({ 't::f1': 'PASSED', 't::f2': 'XFAIL', 't::p1': 'PASSED', 't::p2': 'SKIPPED' }, gold);
    expect(report).toEqual({ FAIL_TO_PASS: { success: ['t::f1', 't::f2'], failure: [] }, PASS_TO_PASS: { success: ['t::p1'], failure: [] } });
    expect(resolutionStatus(report)).toBe('RESOLVED_FULL');
    const broken = evalTestsReport({ 't::f1': 'PASSED', 't::f2': 'PASSED', 't::p1': 'ERROR' }, gold);
    // p2 is absent: silent success (both SWE-smith and the original); p1 ERROR fails.
    expect(broken.PASS_TO_PASS).toEqual({ success: ['t::p2'], failure: ['t::p1'] });
    expect(resolutionStatus(broken)).toBe('RESOLVED_NO');
  });

  it('a FAIL_TO_PASS test absent from the log: the original debug-gym fails it (default), SWE-smith assumes success', () => {
    // SWE-smith test_passed: `case not in sm or sm[case] in [PASSED, XFAIL]`; the original's calculate_score:
    // test_status_map.get(test, ERROR) — "*Do not* assume silent success".
    const map = { 't::f1': 'PASSED' as const, 't::p1': 'PASSED' as const, 't::p2': 'PASSED' as const };
    expect(resolutionStatus(evalTestsReport(map, gold))).toBe('RESOLVED_PARTIAL');
    expect(resolutionStatus(evalTestsReport(map, gold, { missingFailToPass: 'pass' }))).toBe('RESOLVED_FULL');
    // Nothing ran at all (the agent broke collection): unresolved by default, "resolved" under SWE-smith's rule.
    expect(resolutionStatus(evalTestsReport({}, gold))).toBe('RESOLVED_NO');
    expect(resolutionStatus(evalTestsReport({}, gold, { missingFailToPass: 'pass' }))).toBe('RESOLVED_FULL');
  });

  it("get_resolution_status: FULL when both rates are 1, PARTIAL when 0 < f2p < 1 and p2p is 1, else NO", () => {
    const r = (f: [number, number], p: [number, number]) =>
      resolutionStatus({ FAIL_TO_PASS: { success: Array(f[0]).fill('s'), failure: Array(f[1]).fill('f') }, PASS_TO_PASS: { success: Array(p[0]).fill('s'), failure: Array(p[1]).fill('f') } });
    expect(r([0, 0], [0, 0])).toBe('RESOLVED_FULL');
    expect(r([1, 1], [3, 0])).toBe('RESOLVED_PARTIAL');
    expect(r([1, 1], [2, 1])).toBe('RESOLVED_NO');
    expect(r([0, 2], [3, 0])).toBe('RESOLVED_NO');
  });

  it('filter_irrelevant_tests keeps the tests under the command\'s test files', () => {
    expect(filterIrrelevantTests(['tests/a.py::x', 'tests/b.py::y'], ['tests/a.py'])).toEqual(['tests/a.py::x']);
    expect(filterIrrelevantTests(['tests/a.py::x'], [])).toEqual(['tests/a.py::x']);
  });

  it('get_valid_report: F2P = failing with the bug and passing without, P2P = passing in both', () => {
    const pre = { a: 'FAILED', b: 'PASSED', c: 'FAILED', d: 'PASSED', gone: 'FAILED' } as const;
    const post = { a: 'PASSED', b: 'PASSED', c: 'FAILED', d: 'FAILED', fresh: 'PASSED' } as const;
    expect(validReport(pre, post)).toEqual({ FAIL_TO_PASS: ['a', 'fresh', 'gone'], PASS_TO_PASS: ['b'], FAIL_TO_FAIL: ['c'], PASS_TO_FAIL: ['d'] });
    // Minimal testing: a test absent from the bug run is ignored.
    expect(validReport(pre, post, true).FAIL_TO_PASS).toEqual(['a', 'gone']);
  });

  it('read_test_output: the text between the eval script markers; a failed apply or a timeout is no output', () => {
    const log = "setup\n+ : '>>>>> Start Test Output'\nx PASSED\n+ : '>>>>> End Test Output'\n";
    expect(readTestOutput(log)).toEqual({ output: '\nx PASSED\n', found: true });
    expect(readTestOutput('>>>>> Patch Apply Failed')).toEqual({ output: null, found: false });
    expect(readTestOutput('no markers')).toEqual({ output: 'no markers', found: false });
  });
});

describe("gotest's status lines, read as a scan", () => {
  it('finds what the harness expression finds (random lines)', () => {
    const regex = /^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$/;
    const pieces = ['a', ' ', '(', ')', ' (', '0.1s', ')', ':', ': ', 'PASS', '\r', '\t', 'constructor'];
    const next = seededIntegers(5);
    let found = 0;
    for (let round = 0; round < 20_000; round += 1) {
      let rest = '';
      for (let count = next() % 8; count > 0; count -= 1) rest += pieces[next() % pieces.length];
      const line = `${['--- PASS: ', '--- FAIL: ', '--- SKIP: ', '--- constructor: ', '--- PASS:', '-- PASS: '][next() % 6]}${rest}${next() % 2 ? ' (0.00s)' : ''}`;
      const match = regex.exec(line);
      const expected = match ? { name: match[2], status: { PASS: 'PASSED', FAIL: 'FAILED', SKIP: 'SKIPPED' }[match[1] as 'PASS'] } : null;
      if (expected) found += 1;
      expect(gotestLine(line), JSON.stringify(line)).toEqual(expected);
    }
    expect(found).toBeGreaterThan(2000);
  });

  it("a status line of 'x (' repeated is read in one pass (the harness expression is quadratic on it)", () => {
    expect(gotestLine(`--- PASS: ${'x ('.repeat(300_000)}`)).toBeNull();
    expect(gotestLine(`--- PASS: ${'x ('.repeat(300_000)}1)`)).toEqual({ name: `${'x ('.repeat(299_999)}x`, status: 'PASSED' });
  });
});
