import { describe, expect, it } from 'vitest';
import { splitShellWords } from '../src/index.js';

describe('splitShellWords', () => {
  it.each([
    [' -sq .', ['-sq', '.']],
    ['--tb=no -s test.py', ['--tb=no', '-s', 'test.py']],
    [`-k "a and not b" 'x y'`, ['-k', 'a and not b', 'x y']],
    ['tests/test_a.py::test_b[1-2]', null],
    ['""', ['']],
    ['-k "$HOME"', null],
    ['tests/*.py', null],
    ['~/x', null],
    ['a; b', null],
    ['"unterminated', null],
    ['', []],
  ])('%j → %j', (text, words) => {
    expect(splitShellWords(text)).toEqual(words);
  });
});
