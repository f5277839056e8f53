/**
 * The reverse of a unified diff (what `git apply --reverse` applies): old and new sides swapped in
 * the file headers (`---`/`+++`, `new file`/`deleted file`, `index a..b`, renames) and in every hunk
 * (`@@ -a,b +c,d @@` → `@@ -c,d +a,b @@`, `-` ↔ `+`, each run of changes re-ordered removals first).
 * A `\ No newline at end of file` marker stays with the line it follows.
 */
export function reversePatch(patch: string): string {
  const lines = patch.split('\n');
  const out: string[] = [];
  let index = 0;
  let run: { minus: string[]; plus: string[] } | null = null;
  const flush = (): void => {
    if (run) out.push(...run.minus, ...run.plus);
    run = null;
  };
  let inHunk = false;
  let oldLeft = 0;
  let newLeft = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (inHunk && (oldLeft > 0 || newLeft > 0 || line.startsWith('\\'))) {
      const kind = line[0];
      if (kind === '-' || kind === '+') {
        run ??= { minus: [], plus: [] };
        const group = kind === '-' ? run.plus : run.minus;
        group.push(`${kind === '-' ? '+' : '-'}${line.slice(1)}`);
        if (kind === '-') oldLeft -= 1;
        else newLeft -= 1;
        // The marker belongs to the line above it.
        if ((lines[index + 1] ?? '').startsWith('\\')) {
          group.push(lines[index + 1] as string);
          index += 1;
        }
      } else if (kind === '\\') {
        flush();
        out.push(line);
      } else {
        flush();
        out.push(line === '' ? ' ' : line);
        oldLeft -= 1;
        newLeft -= 1;
        if ((lines[index + 1] ?? '').startsWith('\\')) {
          out.push(lines[index + 1] as string);
          index += 1;
        }
      }
      index += 1;
      if (oldLeft <= 0 && newLeft <= 0) {
        flush();
        inHunk = (lines[index] ?? '').startsWith('\\');
      }
      continue;
    }
    inHunk = false;
    flush();
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$/.exec(line);
    if (header) {
      const [, oldStart, oldCount, newStart, newCount, rest] = header;
      out.push(`@@ -${newStart}${newCount === undefined ? '' : `,${newCount}`} +${oldStart}${oldCount === undefined ? '' : `,${oldCount}`} @@${rest}`);
      oldLeft = oldCount === undefined ? 1 : Number(oldCount);
      newLeft = newCount === undefined ? 1 : Number(newCount);
      inHunk = oldLeft > 0 || newLeft > 0;
      index += 1;
      continue;
    }
    if (line.startsWith('--- ') && (lines[index + 1] ?? '').startsWith('+++ ')) {
      const oldPath = line.slice(4);
      const newPath = (lines[index + 1] as string).slice(4);
      const swap = (path: string, prefix: 'a/' | 'b/'): string => (path.startsWith('a/') || path.startsWith('b/') ? `${prefix}${path.slice(2)}` : path);
      out.push(`--- ${swap(newPath, 'a/')}`, `+++ ${swap(oldPath, 'b/')}`);
      index += 2;
      continue;
    }
    const git = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
    if (git) out.push(`diff --git a/${git[2]} b/${git[1]}`);
    else if (line.startsWith('new file mode ')) out.push(`deleted file mode ${line.slice('new file mode '.length)}`);
    else if (line.startsWith('deleted file mode ')) out.push(`new file mode ${line.slice('deleted file mode '.length)}`);
    else if (line.startsWith('old mode ')) out.push(`new mode ${line.slice('old mode '.length)}`);
    else if (line.startsWith('new mode ')) out.push(`old mode ${line.slice('new mode '.length)}`);
    else if (line.startsWith('rename from ')) out.push(`rename to ${line.slice('rename from '.length)}`);
    else if (line.startsWith('rename to ')) out.push(`rename from ${line.slice('rename to '.length)}`);
    else if (/^index [0-9a-f]+\.\.[0-9a-f]+/.test(line)) out.push(line.replace(/^index ([0-9a-f]+)\.\.([0-9a-f]+)/, 'index $2..$1'));
    else out.push(line);
    index += 1;
  }
  flush();
  // Renames: git writes `rename from` before `rename to`; keep that order.
  for (let i = 0; i + 1 < out.length; i += 1) {
    if ((out[i] as string).startsWith('rename to ') && (out[i + 1] as string).startsWith('rename from ')) [out[i], out[i + 1]] = [out[i + 1] as string, out[i] as string];
    if ((out[i] as string).startsWith('new mode ') && (out[i + 1] as string).startsWith('old mode ')) [out[i], out[i + 1]] = [out[i + 1] as string, out[i] as string];
  }
  return out.join('\n');
}
