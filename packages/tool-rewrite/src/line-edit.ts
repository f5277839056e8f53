export type LineEnding = '\n' | '\r\n' | '\r';

/** One line of a file and the terminator that follows it (`''` for a last line without one). */
export interface Line {
  text: string;
  ending: LineEnding | '';
}


/** Split content into lines with their terminators; `join` of the result gives the content back byte for byte. */
export function parseLines(content: string): Line[] {
  // A scan (the file is the agent's): no match object per line break.
  const lines: Line[] = [];
  let from = 0;
  for (let index = 0; index < content.length; index += 1) {
    const code = content.charCodeAt(index);
    if (code !== 0x0a && code !== 0x0d) continue;
    const crlf = code === 0x0d && content.charCodeAt(index + 1) === 0x0a;
    lines.push({ text: content.slice(from, index), ending: crlf ? '\r\n' : code === 0x0d ? '\r' : '\n' });
    if (crlf) index += 1;
    from = index + 1;
  }
  if (from < content.length) lines.push({ text: content.slice(from), ending: '' });
  return lines;
}

export function joinLines(lines: readonly Line[]): string {
  let out = '';
  for (const line of lines) out += line.text + line.ending;
  return out;
}

/** The file's usual line terminator (the most frequent one; `\n` on a tie or when there is none). */
export function dominantEnding(lines: readonly Line[]): LineEnding {
  const counts = { '\n': 0, '\r\n': 0, '\r': 0 };
  for (const line of lines) if (line.ending !== '') counts[line.ending] += 1;
  if (counts['\r\n'] > counts['\n'] && counts['\r\n'] >= counts['\r']) return '\r\n';
  if (counts['\r'] > counts['\n'] && counts['\r'] > counts['\r\n']) return '\r';
  return '\n';
}

/** The lines of `new_code`: split on any terminator, so `"a\n"` is two lines (`a` and an empty one), as in the original. */
export function splitNewCode(newCode: string): string[] {
  return newCode.split(/\r\n|\r|\n/);
}

export interface LineEditResult {
  content: string;
  /** The lines actually replaced (1-based, inclusive); for an append, both are the new first line. */
  start: number;
  end: number;
  /** The new code was added after the last line. */
  appended: boolean;
}

/**
 * Replace lines `start..end` (1-based, inclusive; `end` past the file is clamped) by the lines of
 * `newCode`. A `start` past the last line appends. New lines take the file's usual terminator,
 * and the file keeps its final-newline state: the last new line inherits the terminator of the
 * last replaced line, and an append to a file that ends with a newline still ends with one (the
 * original added a blank line there, or dropped the final newline when appending at line N+1).
 */
export function applyLineEdit(content: string, start: number, end: number, newCode: string): LineEditResult {
  const lines = parseLines(content);
  const eol = dominantEnding(lines);
  const texts = splitNewCode(newCode);
  const total = lines.length;
  if (start <= total) {
    const last = Math.min(end, total);
    const trailing = (lines[last - 1] as Line).ending;
    const replacement = texts.map((text, index): Line => ({ text, ending: index === texts.length - 1 ? trailing : eol }));
    lines.splice(start - 1, last - start + 1, ...replacement);
    return { content: joinLines(lines), start, end: last, appended: false };
  }
  const lastLine = lines[total - 1];
  let trailing: Line['ending'] = '';
  if (lastLine) {
    trailing = lastLine.ending;
    if (lastLine.ending === '') lastLine.ending = eol;
  }
  const added = texts.map((text, index): Line => ({ text, ending: index === texts.length - 1 ? trailing : eol }));
  return { content: joinLines([...lines, ...added]), start: total + 1, end: total + 1, appended: true };
}

/**
 * A whole-file replacement of a CRLF (or CR) file keeps its terminators: the model only ever sees
 * `\n` (observations are normalized), so `\n` in the new code is mapped back. New code that
 * already contains `\r`, and files that use `\n`, are written verbatim.
 */
export function matchLineEndings(newCode: string, previousContent: string): string {
  if (newCode.includes('\r')) return newCode;
  const eol = dominantEnding(parseLines(previousContent));
  return eol === '\n' ? newCode : newCode.replace(/\n/g, eol);
}
