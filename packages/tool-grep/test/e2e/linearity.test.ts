import { ADVERSARIAL_UNITS, adversarialText, growth } from '@debug-gym/test-utils/linearity';
import { describe, expect, it } from 'vitest';
import { compileGlob, compileGrepPattern, matchTexts, translateEre } from '../../src/index.js';

/**
 * The pattern, the path glob and the files are the agent's. Time must grow linearly with them: a ratio
 * between sizes 8× apart (8 K, 64 K, 512 K, the smaller of the two steps counting: linear ≈ 8×, quadratic ≈ 64×), the best of several runs of CPU time each (the
 * matching worker's included). The megabyte-sized measurement is `pnpm perf:text`.
 */
const evilGlob = compileGlob(`${'*a'.repeat(12)}b`);
const cases: Array<[string, (text: string) => unknown]> = [
  ['translateEre', translateEre],
  ['compileGrepPattern', (text) => compileGrepPattern(text)],
  ['a *a*a…b glob', (text) => evilGlob.ok && evilGlob.match(text)],
  ['matching (a+)+$', (text) => matchTexts('(a+)+$', '', [text], 100, 60_000)],
  ['matching (x+x+)+y, case-insensitive', (text) => matchTexts('(x+x+)+y', 'i', [text], 100, 60_000)],
];

describe.each(cases)('%s takes time linear in the text', (_name, fn) => {
  it.each(ADVERSARIAL_UNITS.map((entry) => [entry.name, entry.unit] as const))('on %s', async (_input, unit) => {
    const { ratio } = await growth(fn, (length) => adversarialText(unit, length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});
