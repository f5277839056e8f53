import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testPython } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import astGenerator, { AST_OPERATORS, mutateFiles } from '../src/index.js';

/** One small module with something for every operator. */
const SOURCE = `COPY = None


def total(items, start=0, strict=False):
    """Sum of items from start."""
    result = start
    for index in range(len(items)):
        if items[index] < 0 and strict:
            raise ValueError("negative")
        result += items[index]
    return result


def window(values, size):
    out = []
    i = 0
    while i < len(values):
        out.append(values[i:i + size])
        i += size
    return out


def pick(mapping, key, default):
    if key in mapping:
        return mapping[key]
    snapshot = copy.copy(mapping)
    snapshot.update({key: default})
    return divmod(len(snapshot), 2)


def scale(values, factor):
    base = 10
    count = 3
    return [value * factor + base - count for value in values]
`;

function repo(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'synth-ast-'));
  writeFileSync(join(dir, 'lib.py'), text);
  return dir;
}

const apply = (text: string, c: { line: number; endLine: number; replacement: string }): string => {
  const lines = text.split(/(?<=\n)/);
  return [...lines.slice(0, c.line - 1), c.replacement, ...lines.slice(c.endLine)].join('');
};

describe('the ast generator', () => {
  const dir = repo(SOURCE);

  test.each([
    ['off-by-one', 'range(len(items) + 1)'],
    ['flip-comparison', 'items[index] >= 0'],
    ['loosen-comparison', 'items[index] <= 0'],
    ['swap-arguments', 'divmod(2, len(snapshot))'],
    ['wrong-operator', 'result -= items[index]'],
    ['drop-statement', null],
    ['duplicate-statement', 'out.append(values[i:i + size])\n        out.append(values[i:i + size])'],
    ['early-return', 'result = start\n    return result'],
    ['missing-return', '        mapping[key]\n'],
    ['wrong-default', 'strict=True'],
    ['swallow-exception', '            pass\n'],
    ['mutate-constant', 'base = 11'],
    ['replace-variable', 'value * factor + base - base'],
    ['break-loop-condition', 'while i <= len(values)'],
    ['copy-to-inplace', 'snapshot = mapping\n'],
  ])('%s: a valid mutation whose file parses and differs from the original', async (operator, expected) => {
    const { candidates } = await mutateFiles({ python: testPython, repoDir: dir, files: ['lib.py'], operators: [operator] });
    expect(candidates.length).toBeGreaterThan(0);
    for (const candidate of candidates) {
      expect(candidate.operator).toBe(operator);
      expect(candidate.function).not.toBeNull();
      expect(apply(SOURCE, candidate)).not.toBe(SOURCE);
    }
    if (expected !== null) expect(candidates.map((c) => apply(SOURCE, c)).some((text) => text.includes(expected))).toBe(true);
    else expect(candidates.some((c) => c.replacement === '')).toBe(true);
  });

  test('every operator is exercised by the table above', () => {
    expect(AST_OPERATORS).toHaveLength(15);
  });

  test('rejects a mutation that would not change the code, and one whose text would not parse to the intended tree', async () => {
    // swap-arguments of two equal arguments (max(x, x)) is a no-op: rejected, and counted as such.
    const dir2 = repo('def f(x):\n    return max(x, x) + -x ** 2\n');
    const { candidates, rejected } = await mutateFiles({ python: testPython, repoDir: dir2, files: ['f.py'].map(() => 'lib.py'), operators: ['swap-arguments'] });
    expect(candidates).toEqual([]);
    expect(rejected['swap-arguments:no-change']).toBe(1);
  });

  test('an unparsable file gives no candidates and is counted', async () => {
    const broken = repo('def f(:\n');
    const { candidates, rejected } = await mutateFiles({ python: testPython, repoDir: broken, files: ['lib.py'] });
    expect(candidates).toEqual([]);
    expect(rejected['file:unparsable']).toBe(1);
  });

  test('the plugin generates the same candidates in the same order twice, each with where and what changed', async () => {
    const context = { repoDir: dir, files: ['lib.py'], operators: [...AST_OPERATORS], seed: 1, python: testPython };
    const first = await astGenerator.generate(context);
    const second = await astGenerator.generate(context);
    expect(second).toEqual(first);
    const sample = first.find((c) => c.operator === 'off-by-one');
    expect(sample).toMatchObject({ generator: 'ast', file: 'lib.py', function: { name: 'total', line: 4, endLine: 11 } });
    expect(sample?.description).toMatch(/range argument/);
  });
});
