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

const FRAME_LINE = /^[> ] (.+?)\((\d+)\)\S*\(\)\s*$/;

/**
 * pdb prints a source line after every frame it reports (`> file.py(12)f()` then `-> code`, also in
 * `where`). For frames in hidden files the code line is replaced, so their source never shows.
 */
export function scrubHiddenSource(text: string, isHidden: (file: string) => boolean): string {
  if (!text.includes('\n-> ')) return text;
  const lines = text.split('\n');
  for (let index = 0; index + 1 < lines.length; index += 1) {
    const match = FRAME_LINE.exec(lines[index] ?? '');
    if (match && (lines[index + 1] ?? '').startsWith('-> ') && isHidden(match[1] ?? '')) lines[index + 1] = HIDDEN_SOURCE_LINE;
  }
  return lines.join('\n');
}
