import { describe, expect, it } from 'vitest';
import { OutputCap, normalizeOutput, splitShellWords, stripAnsi, truncateMiddle } from '../src/index.js';

describe('normalizeOutput', () => {
  it('removes ANSI colors, OSC titles, carriage returns and stray control characters', () => {
    expect(stripAnsi('\u001b[31mred\u001b[0m')).toBe('red');
    expect(normalizeOutput('\u001b]0;title\u0007a\r\nb\rc\u0000d\te')).toBe('a\nb\ncd\te');
  });

  // Every sequence a program in the sandbox can print to reset, move, recolor or re-title a terminal.
  it.each([
    ['SGR color', '\u001b[1;31m'],
    ['CSI private mode', '\u001b[?25l'],
    ['CSI with an intermediate byte (cursor style)', '\u001b[2 q'],
    ['8-bit CSI (C1 0x9b)', '\u009b31m'],
    ['8-bit CSI erase', '\u009b2J'],
    ['full reset (ESC c)', '\u001bc'],
    ['save / restore cursor (ESC 7, ESC 8)', '\u001b7\u001b8'],
    ['charset designation (ESC ( 0)', '\u001b(0'],
    ['charset designation (ESC ) B)', '\u001b)B'],
    ['DEC line test (ESC # 8)', '\u001b#8'],
    ['keypad mode (ESC =, ESC >)', '\u001b=\u001b>'],
    ['reverse index (ESC M)', '\u001bM'],
    ['SS3 key (ESC O A)', '\u001bOA'],
    ['OSC title ended by BEL', '\u001b]0;title\u0007'],
    ['OSC hyperlink ended by ST', '\u001b]8;;http://x\u001b\\'],
    ['8-bit OSC ended by 8-bit ST', '\u009d0;title\u009c'],
    ['DCS', '\u001bPq#0;2\u001b\\'],
    ['8-bit DCS', '\u0090q#0\u009c'],
    ['APC', '\u001b_payload\u001b\\'],
    ['PM', '\u001b^payload\u001b\\'],
    ['SOS', '\u001bXpayload\u001b\\'],
    ['C1 single controls (IND, NEL)', '\u0084\u0085'],
    ['bell, backspace, form feed, DEL', '\u0007\b\f\u007f'],
  ])('strips %s', (_name, sequence) => {
    expect(normalizeOutput(`before${sequence}after`)).toBe('beforeafter');
    // Text that starts with a letter a terminal could read as a final byte is kept.
    expect(normalizeOutput(`${sequence}loud`)).toBe('loud');
  });

  it('keeps tabs, newlines and ordinary non-ASCII text', () => {
    expect(normalizeOutput('a\tb\nc é ✓ \u00a0d')).toBe('a\tb\nc é ✓ \u00a0d');
  });

  it('drops a lone ESC, and an unterminated control string does not swallow the lines after it', () => {
    expect(normalizeOutput('end\u001b')).toBe('end');
    expect(normalizeOutput('a\u001b\nb')).toBe('a\nb');
    const cut = normalizeOutput('\u001b]0;title\nrest');
    expect(cut).not.toContain('\u001b');
    expect(cut).toMatch(/\nrest$/);
  });
});

describe('OutputCap', () => {
  it('keeps at most the limit and counts the dropped bytes', () => {
    const cap = new OutputCap(10);
    cap.push('12345');
    cap.push(Buffer.from('67890abc'));
    cap.push('more');
    expect(cap.keptBytes).toBe(10);
    expect(cap.droppedBytes).toBe(7);
    expect(cap.text()).toBe('1234567890\n[... output truncated: 7 more bytes were dropped ...]');
  });

  it('decodes invalid UTF-8 with replacement characters', () => {
    const cap = new OutputCap(100);
    cap.push(Buffer.from([0x61, 0xff, 0x62]));
    expect(cap.text()).toBe('a\uFFFDb');
  });
});

describe('truncateMiddle', () => {
  it('leaves short text alone and keeps head and tail of long text', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
    const cut = truncateMiddle('a'.repeat(500) + 'b'.repeat(500), 200);
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut.startsWith('aaa')).toBe(true);
    expect(cut.endsWith('bbb')).toBe(true);
    expect(cut).toContain('characters truncated');
  });
});

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
