/** One `@@ -a,b +c,d @@` block. `lines` keep their prefix (` `, `-`, `+`, `\`). */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** The change to one file. Paths are relative (`a/`/`b/` stripped); null for `/dev/null`. */
export interface FilePatch {
  oldPath: string | null;
  newPath: string | null;
  hunks: DiffHunk[];
  binary: boolean;
  /** A git rename (`rename from` / `rename to`). Plain diffs of `x.orig` against `x` are not renames. */
  renamed: boolean;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function stripPath(raw: string): string | null {
  const path = raw.split('\t')[0]?.trim() ?? '';
  if (path === '/dev/null') return null;
  const unquoted = path.startsWith('"') && path.endsWith('"') ? path.slice(1, -1) : path;
  return unquoted.replace(/^[ab]\//, '');
}

/** Parse a unified diff (git or plain `diff -u`) into per-file changes. Unknown lines are skipped. */
export function parseUnifiedDiff(text: string): FilePatch[] {
  const files: FilePatch[] = [];
  const lines = text.split('\n');
  let current: FilePatch | null = null;
  let index = 0;
  const startFile = (): FilePatch => {
    const file: FilePatch = { oldPath: null, newPath: null, hunks: [], binary: false, renamed: false };
    files.push(file);
    return file;
  };
  while (index < lines.length) {
    const line = lines[index] as string;
    if (line.startsWith('diff --git ')) {
      current = startFile();
      const match = /^diff --git (?:"?a\/)(.+?)"? (?:"?b\/)(.+?)"?$/.exec(line);
      if (match) {
        current.oldPath = match[1] as string;
        current.newPath = match[2] as string;
      }
      index += 1;
      continue;
    }
    if (line.startsWith('--- ') && (lines[index + 1] ?? '').startsWith('+++ ')) {
      // A plain diff has no `diff --git` line: a `---`/`+++` pair starts the file.
      if (!current || current.hunks.length > 0) current = startFile();
      current.oldPath = stripPath(line.slice(4));
      current.newPath = stripPath((lines[index + 1] as string).slice(4));
      index += 2;
      continue;
    }
    if (current && line.startsWith('new file mode')) current.oldPath = null;
    else if (current && line.startsWith('deleted file mode')) current.newPath = null;
    else if (current && line.startsWith('rename from ')) {
      current.oldPath = line.slice('rename from '.length);
      current.renamed = true;
    } else if (current && line.startsWith('rename to ')) current.newPath = line.slice('rename to '.length);
    else if (current && (line.startsWith('Binary files ') || line.startsWith('GIT binary patch'))) current.binary = true;
    const header = HUNK_HEADER.exec(line);
    if (current && header) {
      const hunk: DiffHunk = {
        oldStart: Number(header[1]),
        oldLines: header[2] === undefined ? 1 : Number(header[2]),
        newStart: Number(header[3]),
        newLines: header[4] === undefined ? 1 : Number(header[4]),
        lines: [],
      };
      index += 1;
      let oldSeen = 0;
      let newSeen = 0;
      while (index < lines.length && (oldSeen < hunk.oldLines || newSeen < hunk.newLines || (lines[index] ?? '').startsWith('\\'))) {
        const body = lines[index] as string;
        const kind = body[0];
        if (kind === '+') newSeen += 1;
        else if (kind === '-') oldSeen += 1;
        else if (kind === ' ' || body === '') {
          oldSeen += 1;
          newSeen += 1;
        } else if (kind !== '\\') break;
        hunk.lines.push(body === '' ? ' ' : body);
        index += 1;
      }
      current.hunks.push(hunk);
      continue;
    }
    index += 1;
  }
  return files;
}
