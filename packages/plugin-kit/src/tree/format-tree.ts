import type { TreeEntry } from '@debug-gym/spec';

export interface FormatTreeOptions {
  /** Entries left out of `entries` (a listing cut at its entry limit); said in a last line. */
  omitted?: number;
  /** Stop adding lines past this many characters (very long names); the rest counts as omitted. */
  maxChars?: number;
}

/**
 * The listing format of the original's listdir: the root with a trailing `/`, then one line per
 * entry, two spaces of indent per level, `/` after directories, `*` after executables and
 * ` (read-only)` after read-only files. A cut listing ends with a line saying how much is missing.
 */
export function formatTree(rootAbsolute: string, entries: readonly TreeEntry[], options: FormatTreeOptions = {}): string {
  const lines = [rootAbsolute.endsWith('/') ? rootAbsolute : `${rootAbsolute}/`];
  const maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  let chars = lines[0]?.length ?? 0;
  let shown = 0;
  for (const entry of entries) {
    const suffix = entry.type === 'directory' ? '/' : entry.type === 'file' && entry.executable ? '*' : '';
    const line = `${'  '.repeat(entry.depth - 1)}|-- ${entry.name}${suffix}${entry.readonly ? ' (read-only)' : ''}`;
    chars += line.length + 1;
    if (chars > maxChars) break;
    lines.push(line);
    shown += 1;
  }
  const omitted = (options.omitted ?? 0) + entries.length - shown;
  if (omitted > 0) lines.push(`... ${omitted} more entries not shown (list a subdirectory, or a smaller depth, to see them).`);
  return lines.join('\n');
}
