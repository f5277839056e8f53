import { ADVERSARIAL_UNITS, adversarialText, growth } from '@debug-gym/test-utils/linearity';
import { describe, expect, it } from 'vitest';
import { LOG_PARSERS } from '../../src/index.js';

/**
 * SWE-smith's log parsers read the code under test's output at every eval, on the server's event loop:
 * each one's time must grow linearly (a ratio between sizes 8× apart: linear ≈ 8×, quadratic ≈ 64×; CPU
 * time, best of several runs), on runs of every adversarial unit and on one long line of each parser's
 * own literals.
 */
const framed = [
  { name: "a gotest status line of 'x (' repeated", make: (length: number) => `--- PASS: ${adversarialText('x (', length)}\n--- PASS: TestA (0.00s)\n` },
  { name: "a gotest status line of ' ()' repeated", make: (length: number) => `--- FAIL: a${adversarialText(' ()', length)})\n` },
  { name: 'a pytest status line of spaces', make: (length: number) => `PASSED ${adversarialText(' ', length)}x\n` },
  { name: "a unittest line of ' ... ' repeated", make: (length: number) => `${adversarialText(' ... ', length)}ok\n` },
];
const inputs = [...ADVERSARIAL_UNITS.map((entry) => ({ name: entry.name, make: (length: number) => adversarialText(entry.unit, length) })), ...framed];
describe.each(Object.entries(LOG_PARSERS))('the %s log parser takes time linear in the log', (_name, parse) => {
  it.each(inputs.map((entry) => [entry.name, entry.make] as const))('on %s', async (_input, make) => {
    const { ratio } = await growth(parse, make, 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});
