import { expect, test } from 'vitest';
import { seededIntegers } from '@debug-gym/test-utils/linearity';
import { HIDDEN_SOURCE_LINE, frameFile, scrubHiddenSource } from '../src/hidden-files.js';

const hidden = (file: string): boolean => file.endsWith('secret.py');

test('the source line of a frame in a hidden file is replaced', () => {
  const text = [
    '  /w/calc.py(5)run()',
    '-> return compute(x) + 1',
    '> /w/secret.py(2)compute()',
    '-> hidden_value = x * 3',
    '--Return--',
  ].join('\n');
  expect(scrubHiddenSource(text, hidden)).toBe(
    ['  /w/calc.py(5)run()', '-> return compute(x) + 1', '> /w/secret.py(2)compute()', HIDDEN_SOURCE_LINE, '--Return--'].join('\n'),
  );
});

test('text without frames is left alone', () => {
  expect(scrubHiddenSource('2', hidden)).toBe('2');
  expect(scrubHiddenSource('> /w/secret.py(2)compute()\nno code line', hidden)).toBe('> /w/secret.py(2)compute()\nno code line');
});

test('frame lines are read as the regular expression they replace reads them (random lines)', () => {
  const regex = /^[> ] (.+?)\((\d+)\)\S*\(\)\s*$/;
  const alphabet = ['>', ' ', ' ', '(', ')', '(', ')', '1', '2', 'a', '/', '.', '\t', '\r', '()', '(1)'];
  const next = seededIntegers(7);
  let matched = 0;
  for (let round = 0; round < 20_000; round += 1) {
    const noise = (): string => {
      let text = '';
      for (let count = next() % 6; count > 0; count -= 1) text += alphabet[next() % alphabet.length];
      return text;
    };
    const prefix = ['> ', '  ', '>', ' '][next() % 4] as string;
    // Half of the lines are shaped like frame lines (file, (digits), name, ()), with noise anywhere.
    const name = (): string => noise().replace(/\s/g, 'x');
    const line = next() % 2 ? `${prefix}${noise()}(${next() % 100})${name()}()${['', ' ', '\t '][next() % 3]}` : prefix + noise() + noise();
    const expected = regex.exec(line)?.[1] ?? null;
    if (expected !== null) matched += 1;
    expect(frameFile(line), JSON.stringify(line)).toBe(expected);
  }
  expect(matched).toBeGreaterThan(200);
});

test('a long line of (1)(1)... is read in one pass (what stalled the server: quadratic backtracking)', () => {
  const line = `> ${'(1)'.repeat(300_000)}`;
  // Counted, not timed: the parser looks at each character a bounded number of times.
  expect(frameFile(line)).toBeNull();
  expect(frameFile(`${line}()`)).toBe('(1)');
  expect(frameFile(`> x${'(1)'.repeat(300_000)}()`)).toBe('x');
  const text = `${line}()\n-> x\n`.repeat(3);
  expect(scrubHiddenSource(text, () => true)).toBe(text.replaceAll('-> x', HIDDEN_SOURCE_LINE));
});
