import { SolutionError } from '@debug-gym/spec';
import { describe, expect, it, test } from 'vitest';
import { fetchControls, parseUnifiedDiff, patchToRewriteCalls } from '../src/index.js';

const GIT_PATCH = `diff --git a/sub/new.py b/sub/new.py
new file mode 100644
index 0000000..9c38d10
--- /dev/null
+++ b/sub/new.py
@@ -0,0 +1,2 @@
+new
+file
\\ No newline at end of file
diff --git a/x.py b/x.py
index 988f966..8d403e3 100644
--- a/x.py
+++ b/x.py
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,5 +9,6 @@ h
 i
 j
 k
-l
+L
+L2
 m
`;

const PLAIN_PATCH = `--- app.py.orig\t2024-01-01 00:00:00
+++ app.py\t2024-01-01 00:00:00
@@ -1,2 +1,2 @@
 def add(a, b):
-    return a - b
+    return a + b
`;

describe('parseUnifiedDiff', () => {
  it('reads git diffs with new files, hunks and the no-newline marker', () => {
    const files = parseUnifiedDiff(GIT_PATCH);
    expect(files.map((file) => [file.oldPath, file.newPath, file.hunks.length])).toEqual([
      [null, 'sub/new.py', 1],
      ['x.py', 'x.py', 2],
    ]);
    expect(files[0]?.hunks[0]).toEqual({ oldStart: 0, oldLines: 0, newStart: 1, newLines: 2, lines: ['+new', '+file', '\\ No newline at end of file'] });
    expect(files[1]?.hunks[1]?.lines).toEqual([' i', ' j', ' k', '-l', '+L', '+L2', ' m']);
  });

  it('reads plain diff -u output, dropping the timestamps', () => {
    const [file] = parseUnifiedDiff(PLAIN_PATCH);
    expect(file).toMatchObject({ oldPath: 'app.py.orig', newPath: 'app.py', binary: false });
    expect(file?.hunks[0]).toMatchObject({ oldStart: 1, oldLines: 2 });
  });

  test.each([
    ['deleted file', 'diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n', { oldPath: 'gone.py', newPath: null }],
    ['rename', 'diff --git a/a.py b/b.py\nsimilarity index 100%\nrename from a.py\nrename to b.py\n', { oldPath: 'a.py', newPath: 'b.py' }],
    ['binary file', 'diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n', { binary: true }],
  ])('recognises a %s', (_name, patch, expected) => {
    expect(parseUnifiedDiff(patch)[0]).toMatchObject(expected);
  });

  it('keeps an empty context line (stripped trailing space) as context', () => {
    const [file] = parseUnifiedDiff('--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n x\n\n-y\n+z\n');
    expect(file?.hunks[0]?.lines).toEqual([' x', ' ', '-y', '+z']);
  });
});

describe('patchToRewriteCalls', () => {
  it('turns hunks into line-range rewrites, bottom-up, and new files into whole-file rewrites', () => {
    expect(patchToRewriteCalls(GIT_PATCH)).toEqual([
      { name: 'rewrite', arguments: { path: 'sub/new.py', new_code: 'new\nfile' } },
      { name: 'rewrite', arguments: { path: 'x.py', start: 9, end: 13, new_code: 'i\nj\nk\nL\nL2\nm' } },
      { name: 'rewrite', arguments: { path: 'x.py', start: 1, end: 5, new_code: 'a\nB\nc\nd\ne' } },
    ]);
  });

  it('uses another tool name when asked', () => {
    expect(patchToRewriteCalls(PLAIN_PATCH, { toolName: 'edit' })).toEqual([
      { name: 'edit', arguments: { path: 'app.py', start: 1, end: 2, new_code: 'def add(a, b):\n    return a + b' } },
    ]);
  });

  it('gives a new file its final newline', () => {
    const calls = patchToRewriteCalls('--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,1 @@\n+x = 1\n');
    expect(calls).toEqual([{ name: 'rewrite', arguments: { path: 'n.py', new_code: 'x = 1\n' } }]);
  });

  test.each([
    ['an empty text', '', /empty or not a unified diff/],
    ['a deletion', 'diff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n', /deletes gone.py/],
    ['a rename', 'diff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n', /renames a.py to b.py/],
    ['a binary change', 'diff --git a/i.png b/i.png\nBinary files a/i.png and b/i.png differ\n', /binary file i.png/],
    ['an insertion without context', '--- a/f.py\n+++ b/f.py\n@@ -3,0 +4 @@\n+x\n', /inserts lines without context/],
    ['a deletion without context', '--- a/f.py\n+++ b/f.py\n@@ -3 +2,0 @@\n-x\n', /deletes lines without context/],
  ])('refuses %s with a SolutionError', (_name, patch, message) => {
    expect(() => patchToRewriteCalls(patch)).toThrow(SolutionError);
    expect(() => patchToRewriteCalls(patch)).toThrow(message);
  });
});

describe('fetchControls', () => {
  it('passes on only the fetch options that are set', () => {
    const onProgress = (): void => undefined;
    const signal = new AbortController().signal;
    expect(fetchControls({ dataPath: '/x', tasks: ['a'] })).toEqual({});
    expect(fetchControls({ download: false, onProgress, signal, cacheDir: '/c' })).toEqual({ download: false, onProgress, signal });
  });
});
