import { describe, expect, it } from 'vitest';
// By path, not by package: @debug-gym/test-utils depends on core (linearity.ts itself imports nothing).
import { ADVERSARIAL_UNITS, adversarialText, growth } from '../../../../tools/test-utils/src/linearity.js';
import { normalizeOutput, stripAnsi } from '../../src/index.js';

/**
 * Every tool's output passes through these on the server's event loop: their time must grow linearly
 * with the text, whatever the agent printed. Asserted as a ratio between sizes 8× apart (8 K, 64 K, 512 K characters; linear ≈ 8×,
 * quadratic ≈ 64× at every step, so the smaller of the two steps counts), each the CPU time of the best of
 * several runs — load does not inflate it.
 * The megabyte-sized measurement is `pnpm perf:text`.
 */
describe.each([
  ['normalizeOutput', normalizeOutput],
  ['stripAnsi', stripAnsi],
])('%s takes time linear in the text', (_name, fn) => {
  it.each(ADVERSARIAL_UNITS.map((entry) => [entry.name, entry.unit] as const))('on %s', async (_input, unit) => {
    const { ratio } = await growth(fn, (length) => adversarialText(unit, length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });

  it('on the issue\'s example: 90 000 8-bit DCS introducers, which the old regex took ~15 s for', async () => {
    const { ratio } = await growth(fn, (length) => '\u0090'.repeat(length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
    expect(normalizeOutput('\u0090'.repeat(90_000))).toBe('');
  });
});
