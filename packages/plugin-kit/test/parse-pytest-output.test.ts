import { readFileSync } from 'node:fs';
import { describe, expect, it, test } from 'vitest';
import { cleanupPytestOutput, parsePytestOutput, pytestScorer } from '../src/index.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/pytest/${name}.txt`, import.meta.url), 'utf8');

describe('parsePytestOutput on real pytest outputs', () => {
  test.each([
    ['all-pass-verbose', { passed: 2, failed: 0, errors: 0, collected: 2, total: 2, collectionError: false }],
    ['all-pass-quiet', { passed: 2, failed: 0, collected: null, total: 2 }],
    ['some-fail', { passed: 1, failed: 2, collected: 3, total: 3 }],
    ['some-fail-quiet', { passed: 1, failed: 2, collected: null, total: 3 }],
    ['errors-xfail-skip', { passed: 1, errors: 1, skipped: 1, xfailed: 1, xpassed: 1, collected: 5, total: 5 }],
    ['no-tests', { passed: 0, collected: 0, total: 0, summaryFound: true }],
    ['syntax-error', { passed: 0, collected: 0, errors: 1, collectionError: true }],
    ['internal-error', { passed: 0, collected: null, summaryFound: false }],
    ['unittest-style', { passed: 1, failed: 1, collected: 2 }],
    ['timeout', { passed: 0, collected: 2, summaryFound: false }],
    ['mini-nightmare-config', { passed: 0, failed: 2, collected: 2, total: 2 }],
  ])('%s', (name, expected) => {
    expect(parsePytestOutput(fixture(name))).toMatchObject(expected);
  });

  it('reads the last summary line when the program printed look-alike lines earlier', () => {
    const output = 'print: 3 passed in 1.00s\nsomething\n==== 1 failed, 1 passed in 0.02s ====\n';
    expect(parsePytestOutput(output)).toMatchObject({ passed: 1, failed: 1, total: 2 });
  });
});

describe('pytestScorer', () => {
  const run = (output: string, extra: Partial<{ exitCode: number | null; timedOut: boolean }> = {}) =>
    pytestScorer({ output, exitCode: 1, timedOut: false, durationMs: 10, timeoutMs: 5000, ...extra });

  it('scores passed tests out of collected ones', () => {
    expect(run(fixture('some-fail'))).toMatchObject({ score: 1, maxScore: 3, success: false });
  });

  it('succeeds only when every test passed and pytest exited 0', () => {
    expect(run(fixture('all-pass-verbose'), { exitCode: 0 })).toMatchObject({ score: 2, maxScore: 2, success: true });
  });

  it('scores a collection error 0 and leaves the max score unknown', () => {
    expect(run(fixture('syntax-error'), { exitCode: 2 })).toMatchObject({ score: 0, maxScore: null, success: false });
  });

  it('reports a timeout with the partial output and scores 0', () => {
    const result = run(fixture('timeout'), { exitCode: null, timedOut: true });
    expect(result.output).toMatch(/^Command timed out after 5 seconds\nPartial output:\n/);
    expect(result).toMatchObject({ score: 0, maxScore: 2, success: false });
  });

  it('gives a max score of at least 1 when no tests were collected', () => {
    expect(run(fixture('no-tests'), { exitCode: 5 })).toMatchObject({ score: 0, maxScore: 1 });
  });

  it('cannot score output that has no pytest summary at all', () => {
    expect(run('Traceback (most recent call last):\nboom')).toMatchObject({ score: 0, maxScore: null });
  });
});

describe('cleanupPytestOutput', () => {
  it('drops platform, rootdir, plugins and cachedir lines and collapses rules', () => {
    const cleaned = cleanupPytestOutput(
      '==========\nplatform linux -- Python\nrootdir: /x\nplugins: a\ncachedir: .c\n----------\nRan 3 tests in 0.001s\nkeep\n',
    );
    expect(cleaned).toBe('====\n----\n\nkeep\n');
  });
});
