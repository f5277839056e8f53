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
/** One long line of a parser's own literal, then a line its pattern does accept (what keeps the line in the searched text). */
const framed = [
  { name: "one line of ' ... Internal Server Error: /', then a closed one", make: (length: number) => `${adversarialText('a ... Internal Server Error: /', length)}\nb ... Internal Server Error: /x/\nok\n` },
  { name: "one line of ' ... System check identified no issues (0 silenced)', then a closed one", make: (length: number) => `${adversarialText('a ... System check identified no issues (0 silenced)', length)}\nb ... System check identified no issues (0 silenced)\nok\n` },
];
const inputs = [...[...ADVERSARIAL_UNITS, ...extra].map((entry) => ({ name: entry.name, make: (length: number) => adversarialText(entry.unit, length) })), ...framed];
describe.each(Object.entries(LOG_PARSERS))('the %s log parser takes time linear in the log', (_name, parse) => {
  it.each(inputs.map((entry) => [entry.name, entry.make] as const))('on %s', async (_input, make) => {
    const { ratio } = await growth(parse, make, 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});
