import type { ToolSchema } from '@debug-gym/spec';
import { ADVERSARIAL_UNITS, adversarialText, growth } from '@debug-gym/test-utils/linearity';
import { describe, expect, it } from 'vitest';
import { parseCommandLine, parseTextToolCall } from '../../src/index.js';

/**
 * A model's answer is parsed for its tool call: the time must grow linearly with the answer (a ratio
 * between sizes 8× apart, 8 K, 64 K, 512 K, the smaller of the two steps counting: linear ≈ 8×,
 * quadratic ≈ 64×; CPU time, best of several runs).
 */
const tools: ToolSchema[] = ['pdb', 'view'].map((name) => ({
  type: 'function',
  function: { name, description: name, parameters: { type: 'object', properties: { command: { type: 'string' }, path: { type: 'string' } }, required: [] } },
}));
const cases: Array<[string, (text: string) => unknown]> = [
  ['parseTextToolCall', (text) => parseTextToolCall(text, tools)],
  ['parseCommandLine', (text) => parseCommandLine(`pdb ${text}`, tools)],
];
const extra = [
  { name: 'unclosed braces around strings', unit: '{"a' },
  { name: 'braces alternating with quotes', unit: "{'{\"" },
];
describe.each(cases)('%s takes time linear in the answer', (_name, fn) => {
  it.each([...ADVERSARIAL_UNITS, ...extra].map((entry) => [entry.name, entry.unit] as const))('on %s', async (_input, unit) => {
    const { ratio } = await growth(fn, (length) => adversarialText(unit, length), 8 * 1024, 8, { minMs: 5, trials: 3, steps: 2 });
    expect(ratio).toBeLessThan(24);
  });
});
