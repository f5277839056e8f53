import { describe, expect, it } from 'vitest';
import { commitPatch, evalDetails, goldPatchOf, instructionsOf, parseExpectedOutput, parseGitDiff, parseLogPytest, parseLogPytestWithOptionalPasses, testCommandOf, isGoodExec } from '../src/index.js';

// The summary of debug-gym's test_r2egym.py (fix #363), the same text.
const R2E_TEST_OUTPUT = `=========================== short test summary info ============================
PASSED r2e_tests/test_example.py::TestExample::test_pass
FAILED r2e_tests/test_example.py::TestExample::test_fail - AssertionError
ERROR r2e_tests/test_example.py::TestExample::test_error
XFAIL r2e_tests/test_example.py::TestExample::test_xfail
XPASS r2e_tests/test_example.py::TestExample::test_xpass
`;

describe('the log parsers', () => {
  it("R2E-Gym's parse_log_pytest: lines after 'short test summary info', keys without the file, ' - ' message cut on FAILED/ERROR; XFAIL/XPASS lines dropped", () => {
    // Upstream (execution_log_parser.py): `if "PASSED" in line ... elif "FAILED" ... elif "ERROR"`, no XFAIL branch.
    expect(parseLogPytest(R2E_TEST_OUTPUT)).toEqual({ 'TestExample.test_pass': 'PASSED', 'TestExample.test_fail': 'FAILED', 'TestExample.test_error': 'ERROR' });
    // Upstream: no summary section → {} (and None → {}).
    expect(parseLogPytest('r2e_tests/test_1.py ..F')).toEqual({});
    expect(parseLogPytest(null)).toEqual({});
    // Upstream: an ERROR line without '::' (a collection error) gives the empty name.
    expect(parseLogPytest('short test summary info\nERROR r2e_tests/test_1.py - ImportError')).toEqual({ '': 'ERROR' });
  });

  it("the original's parser after #363 (test_parse_log_pytest_matches_pond_semantics): XFAIL and XPASS read as PASSED, remembered as optional", () => {
    const { statuses, optionalPasses } = parseLogPytestWithOptionalPasses(R2E_TEST_OUTPUT);
    expect(statuses).toEqual({
      'TestExample.test_pass': 'PASSED',
      'TestExample.test_fail': 'FAILED',
      'TestExample.test_error': 'ERROR',
      'TestExample.test_xfail': 'PASSED',
      'TestExample.test_xpass': 'PASSED',
    });
    expect([...optionalPasses].sort()).toEqual(['TestExample.test_xfail', 'TestExample.test_xpass']);
  });
});

describe('the expected output', () => {
  it("the original's _parse_expected_output: ANSI codes out of the keys (decolor_dict_keys), keys cut at ' - '; invalid JSON names its source", () => {
    // test_load_expected_output_falls_back_to_container_file: '{"\\u001b[31mTestExample.test_pass\\u001b[0m - details": "PASSED"}'
    expect(parseExpectedOutput('{"\\u001b[31mTestExample.test_pass\\u001b[0m - details": "PASSED"}', 'x')).toEqual({ 'TestExample.test_pass': 'PASSED' });
    // test_setup_task_reports_invalid_dataset_expected_output
    expect(() => parseExpectedOutput('not JSON', "task_data['expected_output_json']")).toThrow(/task_data\['expected_output_json'\]/);
  });
});

describe('grading (the original _calculate_eval_details after #363; R2E-Gym _calculate_reward_r2e)', () => {
  const all = parseExpectedOutput(JSON.stringify({ 'TestExample.test_pass': 'PASSED', 'TestExample.test_fail': 'FAILED', 'TestExample.test_error': 'ERROR', 'TestExample.test_xfail': 'PASSED', 'TestExample.test_xpass': 'PASSED' }), 'x');

  it('test_eval_uses_image_test_script_and_records_details: every status as expected → reward 1, with the counts', () => {
    expect(evalDetails(R2E_TEST_OUTPUT, all)).toMatchObject({ n_parsed: 5, n_passed: 3, n_failed: 2, reward: 1 });
  });

  it('test_eval_requires_exact_expected_test_map: an expected test missing from the log → 0 (sizes differ)', () => {
    const expected = { 'TestExample.test_pass': 'PASSED', 'TestExample.test_missing': 'PASSED' };
    expect(evalDetails('short test summary info\nPASSED r2e_tests/test_example.py::TestExample::test_pass\n', expected)).toMatchObject({ reward: 0, mismatched: ['TestExample.test_missing'] });
  });

  it('test_eval_ignores_unexpected_xfail_and_xpass_for_legacy_expected_maps: XFAIL/XPASS absent from the map are not graded', () => {
    const details = evalDetails(
      'short test summary info\nPASSED r2e_tests/test_example.py::TestExample::test_pass\nXFAIL r2e_tests/test_example.py::TestExample::test_xfail\nXPASS r2e_tests/test_example.py::TestExample::test_xpass\n',
      { 'TestExample.test_pass': 'PASSED' },
    );
    expect(details).toMatchObject({ n_parsed: 3, n_passed: 3, reward: 1 });
  });

  it('test_eval_grades_xfail_when_expected_map_includes_it: an XFAIL the map lists as FAILED → 0', () => {
    const output = 'short test summary info\nPASSED r2e_tests/test_example.py::TestExample::test_pass\nXFAIL r2e_tests/test_example.py::TestExample::test_xfail\n';
    expect(evalDetails(output, { 'TestExample.test_pass': 'PASSED', 'TestExample.test_xfail': 'FAILED' }).reward).toBe(0);
    // ... and listed as PASSED, it passes.
    expect(evalDetails(output, { 'TestExample.test_pass': 'PASSED', 'TestExample.test_xfail': 'PASSED' }).reward).toBe(1);
  });

  it('a status differs → 0; an extra parsed (non-XFAIL) test → 0; FAILED tests the map expects FAILED still match', () => {
    expect(evalDetails(R2E_TEST_OUTPUT.replace('PASSED r2e_tests/test_example.py::TestExample::test_pass', 'FAILED r2e_tests/test_example.py::TestExample::test_pass - boom'), all)).toMatchObject({ reward: 0, mismatched: ['TestExample.test_pass'] });
    const expected = { 'TestExample.test_pass': 'PASSED' };
    expect(evalDetails('short test summary info\nPASSED r2e_tests/t.py::TestExample::test_pass\nPASSED r2e_tests/t.py::TestExample::test_new\n', expected)).toMatchObject({ reward: 0, unexpected: ['TestExample.test_new'] });
  });

  it("R2E-Gym's own reward (readExpectedFailures: false): XFAIL/XPASS never parsed, so a map listing them cannot match", () => {
    expect(evalDetails(R2E_TEST_OUTPUT, all, { readExpectedFailures: false }).reward).toBe(0);
    expect(evalDetails(R2E_TEST_OUTPUT, { 'TestExample.test_pass': 'PASSED', 'TestExample.test_fail': 'FAILED', 'TestExample.test_error': 'ERROR' }, { readExpectedFailures: false }).reward).toBe(1);
  });

  it('ANSI codes in the log keys are removed before comparing (decolor_dict_keys on the parse)', () => {
    expect(evalDetails('short test summary info\nPASSED r2e_tests/t.py::\u001b[32mTestExample::test_pass\u001b[0m\n', { 'TestExample.test_pass': 'PASSED' }).reward).toBe(1);
  });
});

describe('task details', () => {
  it("instructions: the text inside [ISSUE]…[/ISSUE] (R2E-Gym's get_task_instruction), else all of it", () => {
    expect(instructionsOf('[ISSUE]Fix the bug[/ISSUE]')).toBe('Fix the bug');
    expect(instructionsOf('no tags')).toBe('no tags');
  });

  it("the original's entrypoints: pytest -rA r2e_tests, pillow's unittest runner, orange3 under xvfb, tornado's runner, scrapy's DNS options", () => {
    expect(testCommandOf('pandas')).toEqual({ entrypoint: 'python -m pytest -W ignore -rA r2e_tests', env: { PYTHONWARNINGS: 'ignore::UserWarning,ignore::SyntaxWarning' } });
    expect(testCommandOf('pillow', ['import unittest']).entrypoint).toBe('python r2e_tests/unittest_custom_runner.py -W ignore');
    expect(testCommandOf('pillow', ['import pytest']).entrypoint).toBe('python -m pytest -W ignore -rA r2e_tests');
    expect(testCommandOf('orange3')).toMatchObject({ entrypoint: 'xvfb-run --auto-servernum .venv/bin/python -m pytest -rA r2e_tests -W ignore', env: { QT_QPA_PLATFORM: 'minimal' } });
    expect(testCommandOf('tornado').entrypoint).toBe('python r2e_tests/tornado_unittest_runner.py -W ignore');
    expect(testCommandOf('scrapy').env.RES_OPTIONS).toBe('timeout:1 attempts:1');
  });
});

describe('ParsedCommit', () => {
  const diff = [
    'diff --git a/pkg/m.py b/pkg/m.py',
    'index 1111111..2222222 100644',
    '--- a/pkg/m.py',
    '+++ b/pkg/m.py',
    '@@ -1,3 +1,3 @@ def f(x):',
    ' def f(x):',
    '-    return x - 1',
    '+    return x + 1',
    ' ',
    'diff --git a/tests/test_m.py b/tests/test_m.py',
    'new file mode 100644',
    'index 0000000..3333333',
    '--- /dev/null',
    '+++ b/tests/test_m.py',
    '@@ -0,0 +1 @@',
    '+def test_f(): pass',
    '\\ No newline at end of file',
    'diff --git a/README.md b/README.md',
    'index 4444444..5555555 100644',
    '--- a/README.md',
    '+++ b/README.md',
    '@@ -1 +1 @@',
    '-a',
    '+b',
  ].join('\n');
  const parsed = parseGitDiff({ oldCommit: 'o', newCommit: 'n', diff, message: 'm', date: '2024-01-01T00:00:00', contents: () => ({ old: '', new: '' }) });

  it("get_patch() (Python files only, test files included) writes back what parse_git_diff read, 'new file mode' and notes included", () => {
    expect(commitPatch(parsed)).toBe(`${diff.split('\ndiff --git a/README.md')[0] as string}\n`);
    expect(commitPatch(parsed, { testFiles: false })).not.toContain('tests/test_m.py');
    expect(commitPatch(parsed, { onlyPython: false })).toContain('README.md');
  });

  it("the gold patch drops lines past a hunk's counts (upstream reads a diff's last newline as an empty context line)", () => {
    const trailing = parseGitDiff({ oldCommit: 'o', newCommit: 'n', diff: `${diff.split('\ndiff --git a/tests')[0] as string}\n`, message: 'm', date: 'd', contents: () => ({ old: '', new: '' }) });
    expect(commitPatch(trailing).endsWith(' \n \n')).toBe(true);
    expect(goldPatchOf({ parsed_commit: trailing })?.endsWith('+    return x + 1\n \n')).toBe(true);
  });

  it("is_good_exec: same tests before and after, none worse, at least one better (keys cut at '[')", () => {
    expect(isGoodExec({ a: 'FAILED', b: 'PASSED' }, { a: 'PASSED', b: 'PASSED' })).toMatchObject({ good: true, improved: ['a'] });
    expect(isGoodExec({ 'a[1]': 'FAILED', b: 'PASSED' }, { 'a[1]': 'PASSED', b: 'FAILED' })).toMatchObject({ good: false, reason: 'NEW_COMMIT_WORSE' });
    expect(isGoodExec({ a: 'PASSED' }, { a: 'PASSED' })).toMatchObject({ good: false, reason: 'NEW_COMMIT_NOT_BETTER' });
    expect(isGoodExec({ a: 'FAILED' }, { b: 'PASSED' })).toMatchObject({ good: false, reason: 'FAIL_AT_TEST_RUN' });
  });
});
