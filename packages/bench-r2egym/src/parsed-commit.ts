/**
 * R2E-Gym's `ParsedCommit` (src/r2egym/commit_models/diff_classes.py): the commit an instance is
 * built from, as the dataset's `parsed_commit_content` JSON holds it. Only what the benchmark needs:
 * `get_patch` (the reference fix R2E-Gym validates its images with) and `parse_git_diff` (to write
 * instances in the same schema offline).
 */

export interface Range {
  start: number;
  length?: number | null;
}

export type LineType = 'context' | 'added' | 'deleted' | 'note';

export interface ParsedLine {
  content: string;
  type: LineType;
}

export interface UniHunk {
  descriptor: { old_range: Range; new_range: Range; section: string };
  line_group: { all_lines: ParsedLine[] };
  modified_entities?: unknown[];
  added_entities?: unknown[];
  deleted_entities?: unknown[];
}

export interface FileDiff {
  old_file_content: string;
  new_file_content: string;
  header: { file: { path: string }; misc_line?: string | null };
  index_line?: { old_commit_hash: string; new_commit_hash: string; mode: string } | null;
  is_binary_file?: boolean;
  binary_line?: string | null;
  minus_file?: { path: string } | null;
  plus_file?: { path: string } | null;
  hunks: UniHunk[];
}

export interface ParsedCommit {
  file_diffs: FileDiff[];
  old_commit_hash: string;
  new_commit_hash: string;
  commit_message: string;
  commit_date: string;
  metadata?: Record<string, unknown>;
}

/** `FileDiff.is_test_file`. */
export function isTestFile(path: string): boolean {
  const parts = path.split('/');
  return path.endsWith('_test.py') || path.startsWith('test_') || (parts.at(-1) as string).startsWith('test_') || ['tests', 'Tests', 'test', 'Test'].some((dir) => parts.includes(dir));
}

const rangeText = (range: Range): string => (range.length === null || range.length === undefined ? `${range.start}` : `${range.start},${range.length}`);

/** `FileDiff.get_patch`. */
export function fileDiffPatch(diff: FileDiff): string {
  let patch = `diff --git a/${diff.header.file.path} b/${diff.header.file.path}\n`;
  if (diff.header.misc_line) patch += `${diff.header.misc_line}\n`;
  if (diff.index_line) patch += `index ${diff.index_line.old_commit_hash}..${diff.index_line.new_commit_hash}${diff.index_line.mode ? ' ' : ''}${diff.index_line.mode}\n`;
  if (diff.is_binary_file) patch += `${diff.binary_line ?? ''}\n`;
  if (diff.minus_file && diff.plus_file) patch += `--- ${diff.minus_file.path}\n+++ ${diff.plus_file.path}\n`;
  for (const hunk of diff.hunks) {
    const { old_range: oldRange, new_range: newRange, section } = hunk.descriptor;
    patch += `@@ -${rangeText(oldRange)} +${rangeText(newRange)} @@${section ? ` ${section}` : ''}\n`;
    for (const line of hunk.line_group.all_lines) {
      const prefix = { context: ' ', added: '+', deleted: '-', note: '\\ ' }[line.type];
      patch += `${prefix}${line.content}\n`;
    }
  }
  return patch;
}

/**
 * `ParsedCommit.get_patch()` with its defaults (test and non-test files, Python files only): the
 * reference fix R2E-Gym applies to validate each image (`validate_docker_and_hf.py`).
 */
export function commitPatch(commit: ParsedCommit, options: { testFiles?: boolean; nonTestFiles?: boolean; onlyPython?: boolean } = {}): string {
  const { testFiles = true, nonTestFiles = true, onlyPython = true } = options;
  let patch = '';
  for (const diff of commit.file_diffs) {
    const path = diff.header.file.path;
    if (onlyPython && !path.endsWith('.py')) continue;
    const test = isTestFile(path);
    if ((test && testFiles) || (!test && nonTestFiles)) patch += fileDiffPatch(diff);
  }
  return patch;
}

/**
 * `CommitParser.parse_git_diff`: a `git diff` text into a ParsedCommit. `contents(path)` gives a
 * file's old and new text (upstream: `git show <commit>:<path>`).
 */
export function parseGitDiff(input: {
  oldCommit: string;
  newCommit: string;
  diff: string;
  message: string;
  date: string;
  contents: (path: string) => { old: string; new: string };
}): ParsedCommit {
  const files: FileDiff[] = [];
  let file: FileDiff | null = null;
  let hunk: UniHunk | null = null;
  for (const line of input.diff.split('\n')) {
    if (line.startsWith('diff --git')) {
      if (file) files.push(file);
      const match = /^diff --git "?a\/([^"]+)"? "?b\/([^"]+)"?/u.exec(line);
      if (!match || match[1] !== match[2]) throw new Error(`Invalid diff header (renames are not supported): ${line}`);
      const path = match[1] as string;
      const contents = input.contents(path);
      file = { old_file_content: contents.old, new_file_content: contents.new, header: { file: { path }, misc_line: null }, index_line: null, is_binary_file: false, binary_line: null, minus_file: null, plus_file: null, hunks: [] };
      hunk = null;
      continue;
    }
    if (!file) continue;
    if (line.startsWith('@@ ')) {
      const match = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/.exec(line);
      if (!match) throw new Error(`Invalid hunk header: ${line}`);
      hunk = {
        descriptor: {
          old_range: { start: Number(match[1]), length: match[2] ? Number(match[2]) : null },
          new_range: { start: Number(match[3]), length: match[4] ? Number(match[4]) : null },
          section: (match[5] as string).trimStart(),
        },
        line_group: { all_lines: [] },
        modified_entities: [],
        added_entities: [],
        deleted_entities: [],
      };
      file.hunks.push(hunk);
      continue;
    }
    if (!hunk) {
      if (line.startsWith('index')) {
        const parts = line.split(/\s+/);
        const hashes = (parts[1] ?? '').split('..');
        if (hashes.length !== 2) throw new Error(`Invalid index line: ${line}`);
        file.index_line = { old_commit_hash: hashes[0] as string, new_commit_hash: hashes[1] as string, mode: parts[2] ?? '' };
      } else if (['old mode', 'new mode', 'deleted file mode', 'new file mode'].some((prefix) => line.startsWith(prefix))) {
        file.header.misc_line = file.header.misc_line ? `${file.header.misc_line}\n${line}` : line;
      } else if (line.startsWith('+++ ')) file.plus_file = { path: line.slice(4) };
      else if (line.startsWith('--- ')) file.minus_file = { path: line.slice(4) };
      else if (line.startsWith('Binary files')) {
        file.is_binary_file = true;
        file.binary_line = line;
      } else if (line !== '') throw new Error(`Unexpected line: ${line}`);
      continue;
    }
    if (line === '' || line.startsWith(' ')) hunk.line_group.all_lines.push({ content: line.slice(1), type: 'context' });
    else if (line.startsWith('-')) hunk.line_group.all_lines.push({ content: line.slice(1), type: 'deleted' });
    else if (line.startsWith('+')) hunk.line_group.all_lines.push({ content: line.slice(1), type: 'added' });
    else if (line.startsWith('\\')) hunk.line_group.all_lines.push({ content: line.slice(2), type: 'note' });
  }
  if (file) files.push(file);
  return { file_diffs: files, old_commit_hash: input.oldCommit, new_commit_hash: input.newCommit, commit_message: input.message, commit_date: input.date, metadata: {} };
}
