import { describe, expect, it } from 'vitest';
import { OutputCap, truncateMiddle } from '../src/index.js';

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
