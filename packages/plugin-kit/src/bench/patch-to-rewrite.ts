import { SolutionError, type ToolCall } from '@debug-gym/spec';
import { parseUnifiedDiff, type DiffHunk, type FilePatch } from './unified-diff.js';

const NO_NEWLINE = '\\';

/** The new side of a hunk: context and added lines, and whether the last one ends without a newline. */
function newSide(hunk: DiffHunk): { lines: string[]; finalNewline: boolean } {
  const lines: string[] = [];
  let finalNewline = true;
  let previous = '';
  for (const line of hunk.lines) {
    if (line.startsWith(NO_NEWLINE)) {
      if (previous !== '-') finalNewline = false;
      continue;
    }
    previous = line[0] as string;
    if (previous === ' ' || previous === '+') lines.push(line.slice(1));
  }
  return { lines, finalNewline };
}

function fileCalls(file: FilePatch, toolName: string): ToolCall[] {
  const label = file.newPath ?? file.oldPath ?? '(unnamed file)';
  if (file.binary) throw new SolutionError(`The patch changes the binary file ${label}: a rewrite cannot express it.`);
  if (file.newPath === null) throw new SolutionError(`The patch deletes ${label}: a rewrite cannot delete files.`);
  if (file.renamed) {
    throw new SolutionError(`The patch renames ${file.oldPath} to ${file.newPath}: a rewrite cannot rename files.`);
  }
  const path = file.newPath;
  if (file.oldPath === null || (file.hunks.length === 1 && (file.hunks[0] as DiffHunk).oldLines === 0 && (file.hunks[0] as DiffHunk).oldStart === 0)) {
    // A new (or empty) file: its whole content.
    const { lines, finalNewline } = file.hunks[0] ? newSide(file.hunks[0]) : { lines: [], finalNewline: false };
    const content = lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : '');
    return [{ name: toolName, arguments: { path, new_code: content } }];
  }
  // Bottom-up, so the line numbers of the hunks above stay valid.
  const hunks = [...file.hunks].sort((a, b) => b.oldStart - a.oldStart);
  return hunks.map((hunk) => {
    const { lines } = newSide(hunk);
    if (hunk.oldLines === 0) {
      throw new SolutionError(`A hunk of ${path} inserts lines without context (@@ -${hunk.oldStart},0): regenerate the patch with context lines.`);
    }
    if (lines.length === 0) {
      throw new SolutionError(`A hunk of ${path} deletes lines without context (+${hunk.newStart},0): regenerate the patch with context lines.`);
    }
    return { name: toolName, arguments: { path, start: hunk.oldStart, end: hunk.oldStart + hunk.oldLines - 1, new_code: lines.join('\n') } };
  });
}

/**
 * A unified diff as `rewrite` tool calls: one line-range rewrite per hunk (bottom-up within a
 * file), one whole-file rewrite per new file. Throws a SolutionError for what a rewrite cannot do
 * (delete, rename, binary). A change of the final newline alone is not reproduced.
 */
export function patchToRewriteCalls(patch: string, options: { toolName?: string } = {}): ToolCall[] {
  const files = parseUnifiedDiff(patch);
  if (files.length === 0) throw new SolutionError('The patch is empty or not a unified diff.');
  return files.flatMap((file) => fileCalls(file, options.toolName ?? 'rewrite'));
}
