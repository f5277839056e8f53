import { ADVERSARIAL_UNITS, adversarialText, growth } from '@debug-gym/test-utils/linearity';
import { describe, expect, it } from 'vitest';
import { LOG_PARSERS } from '../../src/index.js';

/**
 * The test log is the code under test's, parsed at every eval on the server's event loop: each parser's
 * time must grow linearly (a ratio between sizes 8× apart (8 K, 64 K, 512 K; the smaller of the two steps counts): linear ≈ 8×, quadratic ≈ 64×; CPU time, best
 * of several runs). The megabyte-sized measurement is `pnpm perf:text`.
 */
const extra = [
  { name: 'lines of spaces (sympy header)', unit: ' '.repeat(200) + '\n' },
  { name: 'unclosed Django split passes', unit: 'test_x (a.B) ... Testing against Django installed in /x\n' },
  { name: 'status ids with brackets', unit: 'PASSED a[[[[[[[[[[\n' },
];
describe.each(Object.entries(LOG_PARSERS))('the %s log parser takes time linear in the log', (_name, parse) => {
  it.each([...ADVERSARIAL_UNITS, ...extra].map((entry) => [entry.name, entry.unit] as const))('on %s', async (_input, unit) => {
    const { ratio } = await growth(parse, (length) => adversarialText(unit, length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});
