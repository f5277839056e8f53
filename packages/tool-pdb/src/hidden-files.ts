import { posix } from 'node:path';
import { type ToolWorkspace as Workspace } from '@debug-gym/spec';

export const HIDDEN_FRAME_TEXT = 'The current frame is in a file hidden from this task (.debugignore); its source is not shown.';
export const HIDDEN_SOURCE_LINE = '-> (source hidden: the file is excluded by .debugignore)';

/**
 * `.debugignore` for pdb: whether an absolute path (as the workspace names it) is a hidden file of
 * the working copy. Paths outside the working copy (the standard library, site-packages) are not.
 */
export function isHiddenPath(workspace: Workspace, absolute: string): boolean {
  const relative = posix.relative(workspace.workdir, posix.resolve(workspace.workdir, absolute));
  if (relative === '' || relative.startsWith('..') || posix.isAbsolute(relative)) return false;
  return workspace.isIgnored(relative);
}

/**
 * The file of a pdb frame line (`> file.py(12)f()`, or two spaces first in `where`), or null. What the
 * regular expression `/^[> ] (.+?)\((\d+)\)\S*\(\)\s*$/` would capture, found in one pass: the line
 * is program output too, and that expression backtracks quadratically on a long line of `(1)(1)…`.
 */
export function frameFile(line: string): string | null {
  if (!(line.startsWith('> ') || line.startsWith('  '))) return null;
  const trimmed = line.trimEnd();
  if (!trimmed.endsWith('()') || trimmed.length < 2 + 1 + 3 + 2) return null;
  const body = trimmed.slice(2, -2);
  // `(\d+)` then a function name without white space up to the end: the first `(digits)` after the
  // last white space (the name and the digits have none), with at least one character of file before it.
  let from = Math.max(1, lastWhitespace(body) + 1);
  for (;;) {
    const open = body.indexOf('(', from);
    if (open < 0) return null;
    let end = open + 1;
    while (end < body.length && body.charCodeAt(end) >= 48 && body.charCodeAt(end) <= 57) end += 1;
    if (end > open + 1 && body[end] === ')') return /[\r\u2028\u2029]/.test(body.slice(0, open)) ? null : body.slice(0, open);
    from = end > open + 1 ? end : open + 1;
  }
}

/** Index of the last character `\s` matches, or -1. */
function lastWhitespace(text: string): number {
  for (let index = text.length - 1; index >= 0; index -= 1) {
    if (/\s/.test(text[index] as string)) return index;
  }
  return -1;
}

/**
 * pdb prints a source line after every frame it reports (`> file.py(12)f()` then `-> code`, also in
 * `where`). For frames in hidden files the code line is replaced, so their source never shows.
 */
export function scrubHiddenSource(text: string, isHidden: (file: string) => boolean): string {
  if (!text.includes('\n-> ')) return text;
  const lines = text.split('\n');
  for (let index = 0; index + 1 < lines.length; index += 1) {
    if (!(lines[index + 1] ?? '').startsWith('-> ')) continue;
    const file = frameFile(lines[index] ?? '');
    if (file !== null && isHidden(file)) lines[index + 1] = HIDDEN_SOURCE_LINE;
  }
  return lines.join('\n');
}
