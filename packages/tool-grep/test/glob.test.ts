import { describe, expect, it } from 'vitest';
import { MAX_GLOB_LENGTH, compileGlob, scanGlob } from '../src/index.js';

const matcher = (glob: string, base = ''): ((path: string) => boolean) => {
  const compiled = compileGlob(glob, base);
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.match;
};

describe('scanGlob', () => {
  it.each([
    ['./src/*.{py,txt}', { isGlob: true, prefix: './', base: 'src', glob: '*.{py,txt}' }],
    ['*.py', { isGlob: true, prefix: '', base: '', glob: '*.py' }],
    ['src/p*', { isGlob: true, prefix: '', base: 'src', glob: 'p*' }],
    ['src/**/test_?.py', { isGlob: true, prefix: '', base: 'src', glob: '**/test_?.py' }],
    ['a/b/c', { isGlob: false, prefix: '', base: 'a/b/c', glob: '' }],
    ['a\\*b/c', { isGlob: false, prefix: '', base: 'a\\*b/c', glob: '' }],
  ])('%s', (path, expected) => {
    expect(scanGlob(path)).toEqual(expected);
  });
});

describe('compileGlob (picomatch defaults, in linear time)', () => {
  it.each([
    ['*.py', ['a.py', 'src.x.py'], ['.py', '.a.py', 'a/b.py', 'a.pyc']],
    ['src/**/*.py', ['src/a.py', 'src/x/y/a.py'], ['src/.x/a.py', 'src/x/.a.py', 'lib/a.py']],
    ['src/**', ['src', 'src/a', 'src/a/b'], ['src/.a', 'srcx']],
    ['**', ['a', 'a/b'], ['.a/b', 'a/.b']],
    ['.*', ['.a', '.github'], ['a']],
    ['{a,.b}', ['a', '.b'], ['b', '.a']],
    ['{a,b{c,d}}/*', ['a/x', 'bc/x', 'bd/x'], ['b/x', 'bcd/x']],
    ['?.py', ['a.py'], ['.py', 'ab.py']],
    ['[.a]x', ['.x', 'ax'], ['bx']],
    ['[!a]x', ['bx', '1x'], ['ax', '/x']],
    ['[a-c]*', ['a', 'bc', 'c.py'], ['d', '.a']],
    ['[[:digit:]]*', ['1x', '9'], ['x1']],
    ['*.[ch]', ['a.c', 'a.h'], ['a.o']],
    ['x[/]y', [], ['x/y']],
    ['[#-0]', ['#', '.', '0'], ['/', '1']],
    ['a\\*b', ['a*b'], ['axb']],
    ['**/test_*.py', ['test_a.py', 'x/y/test_a.py'], ['x/.y/test_a.py', 'x/atest_a.py']],
  ])('%s', (glob, yes, no) => {
    const match = matcher(glob);
    for (const path of yes) expect(match(path), `${glob} should match ${path}`).toBe(true);
    for (const path of no) expect(match(path), `${glob} should not match ${path}`).toBe(false);
  });

  it('puts a literal base folder in front, hidden names included', () => {
    const match = matcher('*.yml', '.github/workflows');
    expect(match('.github/workflows/ci.yml')).toBe(true);
    expect(match('.github/workflows/.ci.yml')).toBe(false);
    expect(matcher('*', 'a[b]')('a[b]/x')).toBe(true);
  });

  it('refuses a glob longer than the limit and a reversed range', () => {
    expect(compileGlob('*'.repeat(MAX_GLOB_LENGTH + 1))).toEqual({ ok: false, message: `the path pattern is longer than ${MAX_GLOB_LENGTH} characters` });
    expect(compileGlob('[z-a]')).toMatchObject({ ok: false, message: expect.stringMatching(/invalid range/) });
  });

  it('takes a glob that backtracks catastrophically in picomatch, against a long name, in linear time', () => {
    const match = matcher(`${'*a'.repeat(12)}b`);
    // picomatch's RegExp needs minutes for this; the count of steps here grows with the name's length.
    expect(match('a'.repeat(255))).toBe(false);
    expect(match(`${'a'.repeat(254)}b`)).toBe(true);
  });
});
