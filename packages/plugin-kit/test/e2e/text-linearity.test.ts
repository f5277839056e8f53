import { describe, expect, it } from 'vitest';
// By path, not by package: @debug-gym/test-utils depends on core, which depends on plugin-kit.
import { ADVERSARIAL_UNITS, adversarialText, growth } from '../../../../tools/test-utils/src/linearity.js';
import { cleanupPytestOutput, parsePytestOutput, pytestScorer } from '../../src/index.js';

/**
 * Test output is the code under test's; these run on it at every eval, on the server's event loop.
 * Time must grow linearly: a ratio between sizes 8× apart (8 K, 64 K, 512 K; the smaller of the two steps counts; linear ≈ 8×, quadratic ≈ 64×), the best of
 * several runs each. The megabyte-sized measurement is `pnpm perf:text`.
 */
describe.each([
  ['parsePytestOutput', parsePytestOutput],
  ['cleanupPytestOutput', cleanupPytestOutput],
  ['pytestScorer', (output: string) => pytestScorer({ output, exitCode: 1, timedOut: false, durationMs: 1, timeoutMs: 1000 })],
])('%s takes time linear in the output', (_name, fn) => {
  it.each(ADVERSARIAL_UNITS.map((entry) => [entry.name, entry.unit] as const))('on %s', async (_input, unit) => {
    const { ratio } = await growth(fn, (length) => adversarialText(unit, length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });

  it("on the issue's example: '1 ' + '1' * N + '!', which the old summary regex took ~13 s for at N = 100 000", async () => {
    const { ratio } = await growth(fn, (length) => `1 ${'1'.repeat(length)}!`, 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});

describe('parsePytestOutput reads the summary as the regex it replaced did', () => {
  // The old pattern, kept here as the oracle (on short lines only: it is quadratic).
  // eslint-disable-next-line regexp/no-super-linear-backtracking -- the replaced pattern itself, run on short fixed lines
  const OLD_SUMMARY = /^[=\s]*((?:\d+ \w+(?:, )?)+) in [\d.]+s(?: \([^)]*\))?[=\s]*$/;
  it.each([
    '==== 1 failed, 2 passed, 1 warning in 0.12s ====',
    '1 passed in 0.01s',
    '= 3 passed in 12.34s (0:00:12) =',
    '== 2 errors in 0.5s ==',
    '1 passed, in 0.1s',
    'no tests ran in 0.01s',
    '1 passed in 0.1 s',
    '1 passed in s',
    'x 1 passed in 0.1s',
    '1 passed extra in 0.1s',
    '1 passed in 0.1s (a) (b)',
    '1 passed in 0.1s (a)b',
    '  1 passed in 0.1s  ',
    '12 xfailed, 3 xpassed, 1 skipped in 1.00s',
  ])('%s', (line) => {
    const old = OLD_SUMMARY.exec(line.trim());
    const summary = parsePytestOutput(`${line}\n`);
    if (/^[=\s]*no tests ran in [\d.]+s[=\s]*$/.test(line.trim())) {
      expect(summary.summaryFound).toBe(true);
      return;
    }
    expect(summary.summaryFound).toBe(old !== null);
    if (!old) return;
    const expected: Record<string, number> = {};
    for (const part of (old[1] ?? '').split(',')) {
      const [count, word] = part.trim().split(' ');
      if (word) expected[word] = Number(count);
    }
    expect(summary.passed).toBe(expected.passed ?? 0);
    expect(summary.failed).toBe(expected.failed ?? 0);
    expect(summary.xfailed).toBe(expected.xfailed ?? 0);
  });
});
