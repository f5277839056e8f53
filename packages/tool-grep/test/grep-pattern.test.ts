import { describe, expect, it } from 'vitest';
import { MatchTimeoutError, PatternSyntaxError, checkPattern, compileGrepPattern, formatMatches, matchLines, matchTexts, noMatchesText, patternErrorMessage, translateEre } from '../src/index.js';

describe('translateEre', () => {
  it.each([
    ['plain', 'plain'],
    ['[[:digit:]]+', '[0-9]+'],
    ['[^[:space:][:punct:]]', '[^\\s\\v!-\\/:-@\\[-`{-~]'],
    ['[[:upper:]_][[:alnum:]]*', '[A-Z_][a-zA-Z0-9]*'],
    ['\\<word\\>', '\\bword\\b'],
    ['\\\\<', '\\\\<'],
    ['[]a]', '[\\]a]'],
    ['[^]a]', '[^\\]a]'],
    ['[\\]x]', '[\\]x]'],
    ['[[:nosuch:]]', '[[:nosuch:]]'],
    ['a\\.b|c', 'a\\.b|c'],
    ['trailing\\', 'trailing\\'],
    ['\\u00e9t\\u{1F600}', '\\x{00e9}t\\x{1F600}'],
    ['[\\u0041-Z]', '[\\x{0041}-Z]'],
    ['[[:constructor:]]', '[[:constructor:]]'],
  ])('%s → %s', (pattern, expected) => {
    expect(translateEre(pattern)).toBe(expected);
  });
});

describe('compileGrepPattern', () => {
  it.each([
    ['foo|bar', { ok: true, source: 'foo|bar', flags: '' }],
    ['\\p{Lu}\\w+', { ok: true, source: '\\p{Lu}\\w+', flags: '' }],
    ['a\\-b', { ok: true, source: 'a\\-b', flags: '' }],
  ])('%s', (pattern, expected) => {
    expect(compileGrepPattern(pattern)).toEqual(expected);
  });

  it('quotes a literal pattern and sets the case flag', () => {
    expect(compileGrepPattern('a.b(c)*', { regex: false, caseSensitive: false })).toEqual({ ok: true, source: 'a\\.b\\(c\\)\\*', flags: 'i' });
  });

  it('refuses backreferences and lookaround with what to write instead', () => {
    const backreference = compileGrepPattern('(a)\\1');
    expect(backreference).toMatchObject({ ok: false });
    expect(!backreference.ok && backreference.message).toMatch(/^backreferences such as `\\1` are not supported: grep patterns run on RE2 .*linear.*Search for the repeated text/);
    for (const look of ['foo(?=bar)', 'foo(?!bar)', '(?<=x)foo', '(?<!x)foo']) {
      const compiled = compileGrepPattern(look);
      expect(!compiled.ok && compiled.message).toMatch(/^lookahead and lookbehind \(`\(\?<?[=!]`\) are not supported/);
    }
    // Inside a bracket `\1` is no backreference, and `(?:` is a plain group.
    expect(compileGrepPattern('[\\1](?:x)')).toMatchObject({ ok: true });
  });
});

describe('checkPattern (RE2, in the matching worker)', () => {
  it.each([
    ['(', /missing closing \)/],
    ['a**', /invalid nested repetition operator/],
    ['x{1001}', /invalid repeat count/],
    ['\\e', /invalid escape sequence/],
  ])('refuses %s with RE2\'s words', async (pattern, message) => {
    const error = await checkPattern(pattern, '', 10_000).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(PatternSyntaxError);
    expect(patternErrorMessage((error as Error).message)).toMatch(message);
    expect(patternErrorMessage((error as Error).message)).toMatch(/^invalid pattern: .*\(patterns use RE2 syntax, as ripgrep/);
  });

  it('accepts ERE, Perl classes, Unicode classes and inline flags', async () => {
    for (const pattern of ['[[:digit:]]+ \\w+', '\\bfoo\\b|\\d{2,3}', '\\p{L}+', '(?i)hello', 'x{', 'a{,2}']) await expect(checkPattern(pattern, '', 10_000)).resolves.toBeUndefined();
  });
});

describe('matchLines', () => {
  it('numbers lines from 1, ignores the final newline and strips carriage returns', async () => {
    expect(await matchLines('b', '', 'a\r\nb\r\nab\n', 10, 10_000)).toEqual([
      { line: 2, text: 'b' },
      { line: 3, text: 'ab' },
    ]);
    expect(await matchLines('^$', '', 'x\n\ny\n', 10, 10_000)).toEqual([{ line: 2, text: '' }]);
    expect(await matchLines('.', '', '', 10, 10_000)).toEqual([]);
  });

  it('stops at the limit', async () => {
    expect((await matchLines('a', '', 'a\na\na\n', 2, 10_000)).map((match) => match.line)).toEqual([1, 2]);
  });

  it('shares the limit across several texts and leaves out texts after it', async () => {
    expect((await matchTexts('x', '', ['x\nx\n', 'no\n', 'x\n', 'x\n'], 3, 10_000)).map((matches) => matches.map((match) => match.line))).toEqual([[1, 2], [], [1]]);
  });

  it('ignores case with the i flag, Unicode letters included', async () => {
    expect(await matchLines('élan', 'i', 'ÉLAN\nelan\n', 10, 10_000)).toEqual([{ line: 1, text: 'ÉLAN' }]);
  });

  it('runs a pattern that backtracks catastrophically in JavaScript in linear time: it just does not match', async () => {
    // `(a+)+$` against 40 a's and a b freezes a backtracking engine; RE2 answers at once.
    expect(await matchLines('(a+)+$', '', `${'a'.repeat(40)}b\n${'a'.repeat(100_000)}!\n`, 10, 10_000)).toEqual([]);
    expect(await matchLines('(a+)+$', '', 'aaa\n', 10, 10_000)).toEqual([{ line: 1, text: 'aaa' }]);
  });

  it('still stops a search that outlives its time limit (the worker is ended)', async () => {
    const text = `${'ab'.repeat(4 * 1024 * 1024)}\n`;
    const outcome = await matchLines('(?:[ab]{1,100}){1,10}z|(?:\\w+\\s*){1,50}c', '', text, 10, 5).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(MatchTimeoutError);
    // The next search gets a fresh worker.
    expect(await matchLines('b', '', 'a\nb\n', 10, 10_000)).toEqual([{ line: 2, text: 'b' }]);
  });
});

describe('formatMatches', () => {
  it('lays out files and right-aligns line numbers to four columns', () => {
    const files = [
      { display: './a.py', matches: [{ line: 7, text: 'x = 1' }, { line: 12345, text: 'y' }] },
      { display: './b.py', matches: [{ line: 1, text: 'z'.repeat(301) }] },
    ];
    expect(formatMatches(files, false)).toBe(`Found 3 matches:\n\n=== ./a.py ===\n   7: x = 1\n12345: y\n\n=== ./b.py ===\n   1: ${'z'.repeat(300)}...`);
    expect(formatMatches(files.slice(0, 1), true).split('\n')[0]).toBe('Showing first 2 matches (search limit reached):');
  });

  it('keeps a line of exactly 300 characters whole', () => {
    expect(formatMatches([{ display: 'f', matches: [{ line: 1, text: 'q'.repeat(300) }] }], false)).toBe(`Found 1 matches:\n\n=== f ===\n   1: ${'q'.repeat(300)}`);
  });

  it('names the scope when nothing matched', () => {
    expect(noMatchesText('x', undefined)).toBe("No matches found for pattern 'x' in repository.");
    expect(noMatchesText('x', 'src/*.py')).toBe("No matches found for pattern 'x' in src/*.py.");
  });
});
