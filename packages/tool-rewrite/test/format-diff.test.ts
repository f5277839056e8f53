import { describe, expect, test } from 'vitest';
import { unifiedDiff } from '../src/format-diff.js';

const GREET = "import abc\n\ndef greet():\n    print('Hello, world!')\n    print('Goodbye, world!')\n";

describe('unifiedDiff', () => {
  test('matches the original for a one-line change', () => {
    const after = GREET.replace("print('Hello, world!')", "print(f'Hello, {name}!')");
    expect(unifiedDiff(GREET, after)).toBe(
      '--- original\n+++ current\n@@ -1,5 +1,5 @@\n import abc\n \n def greet():\n' +
        "-    print('Hello, world!')\n+    print(f'Hello, {name}!')\n     print('Goodbye, world!')\n",
    );
  });

  test('matches the original for a whole-file rewrite without a final newline', () => {
    expect(unifiedDiff(GREET, "print(f'Hello, {name}!')")).toBe(
      '--- original\n+++ current\n@@ -1,5 +1 @@\n-import abc\n-\n-def greet():\n' +
        "-    print('Hello, world!')\n-    print('Goodbye, world!')\n+print(f'Hello, {name}!')",
    );
  });

  test('numbers an empty original as -0,0', () => {
    expect(unifiedDiff('', 'a\nb\n')).toBe('--- original\n+++ current\n@@ -0,0 +1,2 @@\n+a\n+b\n');
  });

  test('numbers an emptied file as +0,0', () => {
    expect(unifiedDiff('a\n', '')).toBe('--- original\n+++ current\n@@ -1 +0,0 @@\n-a\n');
  });

  test('never glues a line without newline to the next diff line', () => {
    expect(unifiedDiff('a\nb', 'a\nb\nc\n')).toBe('--- original\n+++ current\n@@ -1,2 +1,3 @@\n a\n-b\n+b\n+c\n');
  });

  test('keeps 3 lines of context and splits distant changes into hunks', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 18\n', 'LINE 18\n');
    expect(unifiedDiff(before, after)).toBe(
      '--- original\n+++ current\n@@ -1,5 +1,5 @@\n line 1\n-line 2\n+LINE 2\n line 3\n line 4\n line 5\n' +
        '@@ -15,6 +15,6 @@\n line 15\n line 16\n line 17\n-line 18\n+LINE 18\n line 19\n line 20\n',
    );
  });

  test('is empty for identical texts', () => {
    expect(unifiedDiff(GREET, GREET)).toBe('');
  });

  test('falls back to remove-all/add-all when the texts share nothing and are huge', () => {
    const before = Array.from({ length: 30_000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 30_000 }, (_, i) => `new ${i}`).join('\n') + '\n';
    const diff = unifiedDiff(before, after);
    expect(diff.startsWith('--- original\n+++ current\n@@ -1,30000 +1,30000 @@\n-old 0\n-old 1\n')).toBe(true);
    expect(diff.endsWith('+new 29999\n')).toBe(true);
    expect(diff).not.toContain('No newline');
  });

  test('diffs lines of equal length that share long prefixes by their identity (each line hashed once, not compared character by character)', () => {
    const before = `\u0101\n${`${'x'.repeat(200)}a\n`.repeat(30)}`;
    const after = `${'x'.repeat(200)}b\n`.repeat(30);
    const diff = unifiedDiff(before, after).split('\n');
    expect(diff.slice(0, 3)).toEqual(['--- original', '+++ current', '@@ -1,31 +1,30 @@']);
    expect(diff.filter((line) => line.startsWith('-x'))).toHaveLength(30);
    expect(diff.filter((line) => line.startsWith('+x'))).toHaveLength(30);
    const shared = `${'y'.repeat(300)}\n`;
    expect(unifiedDiff(`a\n${shared}b\n`, `c\n${shared}d\n`)).toBe(`--- original\n+++ current\n@@ -1,3 +1,3 @@\n-a\n+c\n ${'y'.repeat(300)}\n-b\n+d\n`);
  });
});
