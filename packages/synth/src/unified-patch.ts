import { applyPatch, parsePatch, reversePatch, structuredPatch } from 'diff';

/** Replace lines `line`..`endLine` (1-based) of `text` with `replacement`. */
export function applyEdit(text: string, edit: { line: number; endLine: number; replacement: string }): string {
  const lines = text.split(/(?<=\n)/);
  return [...lines.slice(0, edit.line - 1), edit.replacement, ...lines.slice(edit.endLine)].join('');
}

/** A git-style unified diff of one file (what `git diff` prints, `git apply` takes), with its size. */
export function unifiedPatch(file: string, before: string, after: string): { patch: string; added: number; removed: number } {
  const parsed = structuredPatch(`a/${file}`, `b/${file}`, before, after, '', '', { context: 3 });
  let added = 0;
  let removed = 0;
  const body = parsed.hunks.map((hunk) => {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
    }
    return `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n${hunk.lines.join('\n')}\n`;
  });
  return { patch: `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n${body.join('')}`, added, removed };
}

/** The file the reverse of `patch` makes of `after` (false when it does not apply). */
export function applyReverse(patch: string, after: string): string | false {
  const [parsed] = parsePatch(patch);
  return parsed ? applyPatch(after, reversePatch(parsed)) : false;
}
