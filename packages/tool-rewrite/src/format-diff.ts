import { diffArrays } from 'diff';

/** Edit distance above which the changed middle is shown as all-removed then all-added (keeps huge rewrites fast). */
const MAX_EDIT_LENGTH = 500;
const CONTEXT = 3;

type Tag = 'equal' | 'delete' | 'insert';
/** A run of lines: `old[i1..i2)` and `new[j1..j2)` (difflib's opcode). */
type Opcode = [tag: Tag, i1: number, i2: number, j1: number, j2: number];

/**
 * A unified diff in the original's form (Python `difflib.unified_diff` over lines with their
 * terminators, 3 context lines): headers `--- original` / `+++ current`, hunk ranges without `,1`,
 * no "No newline at end of file" marker, a final newline only when the last diff line had one.
 * Unlike difflib, a line without a newline is never glued to the next diff line, and terminators
 * are shown as `\n`. Identical texts give `''`.
 */
export function unifiedDiff(before: string, after: string): string {
  if (before === after) return '';
  const a = tokenize(before);
  const b = tokenize(after);
  const out = ['--- original', '+++ current'];
  let last = '';
  for (const group of groupOpcodes(opcodes(a, b))) {
    const first = group[0] as Opcode;
    const end = group[group.length - 1] as Opcode;
    out.push(`@@ -${range(first[1], end[2])} +${range(first[3], end[4])} @@`);
    for (const [tag, i1, i2, j1, j2] of group) {
      const sign = tag === 'equal' ? ' ' : tag === 'delete' ? '-' : '+';
      for (const line of tag === 'insert' ? b.slice(j1, j2) : a.slice(i1, i2)) {
        out.push(sign + stripEnding(line));
        last = line;
      }
    }
  }
  return `${out.join('\n')}${stripEnding(last) === last ? '' : '\n'}`;
}

/** Lines with their terminators (`"a\n"` and `"a"` differ, as in difflib with keepends). */
function tokenize(text: string): string[] {
  // A scan (the file is the agent's): each line up to and with its `\r\n`, `\r` or `\n`; a last line without one.
  const lines: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== 0x0a && code !== 0x0d) continue;
    if (code === 0x0d && text.charCodeAt(index + 1) === 0x0a) index += 1;
    lines.push(text.slice(start, index + 1));
    start = index + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

function stripEnding(line: string): string {
  if (line.endsWith('\r\n')) return line.slice(0, -2);
  return line.endsWith('\n') || line.endsWith('\r') ? line.slice(0, -1) : line;
}

/** Opcodes over both texts: common prefix and suffix are matched directly, only the middle is diffed. */
function opcodes(a: readonly string[], b: readonly string[]): Opcode[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix += 1;
  // Each distinct line becomes a number first (one hash per line), so the diff's up to
  // MAX_EDIT_LENGTH² comparisons are of numbers: with strings, lines of equal length sharing long
  // prefixes made every comparison cost the prefix (a red team stalled the event loop ~1 s per rewrite).
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const aMid = a.slice(prefix, a.length - suffix).map(idOf);
  const bMid = b.slice(prefix, b.length - suffix).map(idOf);
  const changes = diffArrays(aMid, bMid, { maxEditLength: MAX_EDIT_LENGTH }) ?? [
    { value: aMid, removed: true, added: false, count: aMid.length },
    { value: bMid, added: true, removed: false, count: bMid.length },
  ];
  const codes: Opcode[] = [];
  let i = 0;
  let j = 0;
  const push = (tag: Tag, di: number, dj: number): void => {
    if (di === 0 && dj === 0) return;
    codes.push([tag, i, i + di, j, j + dj]);
    i += di;
    j += dj;
  };
  push('equal', prefix, prefix);
  for (const change of changes) {
    const count = change.value.length;
    if (change.removed) push('delete', count, 0);
    else if (change.added) push('insert', 0, count);
    else push('equal', count, count);
  }
  push('equal', suffix, suffix);
  return codes;
}

/** difflib's `get_grouped_opcodes`: hunks of changes with up to 3 lines of context around them. */
function groupOpcodes(input: readonly Opcode[]): Opcode[][] {
  const codes = input.map((code): Opcode => [...code]);
  const head = codes[0];
  if (head && head[0] === 'equal') codes[0] = ['equal', Math.max(head[1], head[2] - CONTEXT), head[2], Math.max(head[3], head[4] - CONTEXT), head[4]];
  const tail = codes[codes.length - 1];
  if (tail && tail[0] === 'equal') {
    codes[codes.length - 1] = ['equal', tail[1], Math.min(tail[2], tail[1] + CONTEXT), tail[3], Math.min(tail[4], tail[3] + CONTEXT)];
  }
  const groups: Opcode[][] = [];
  let group: Opcode[] = [];
  for (const code of codes) {
    const [tag, , i2, , j2] = code;
    let [, i1, , j1] = code;
    if (tag === 'equal' && i2 - i1 > 2 * CONTEXT) {
      group.push([tag, i1, Math.min(i2, i1 + CONTEXT), j1, Math.min(j2, j1 + CONTEXT)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - CONTEXT);
      j1 = Math.max(j1, j2 - CONTEXT);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length > 0 && !(group.length === 1 && group[0]?.[0] === 'equal')) groups.push(group);
  return groups.filter((g) => g.some((code) => code[0] !== 'equal'));
}

/** difflib's range format over `[start, stop)`: `start` for one line, `start,count` otherwise, `start-1,0` for none. */
function range(start: number, stop: number): string {
  const length = stop - start;
  if (length === 1) return String(start + 1);
  return `${length === 0 ? start : start + 1},${length}`;
}
