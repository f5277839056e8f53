/** Characters that stand for themselves outside quotes (no globbing, expansion, redirection or comment). */
const PLAIN = /[\w@%+=:,./-]/;
/** Characters that keep a meaning inside double quotes. */
const DOUBLE_QUOTED_SPECIAL = /[$`\\!]/;

/**
 * The words a POSIX shell makes of `text`, when that is certain without running it: plain words,
 * `'single'` and `"double"` quoted parts (no `$`, backtick, backslash or `!` in them). Null for
 * anything else (globs, `~`, variables, redirections, several commands), which only a shell can
 * tell: the caller then runs the command as it is.
 */
export function splitShellWords(text: string): string[] | null {
  const words: string[] = [];
  let word: string | null = null;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === ' ' || char === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else if (char === "'" || char === '"') {
      const end = text.indexOf(char, index + 1);
      if (end < 0) return null;
      const quoted = text.slice(index + 1, end);
      if (char === '"' && DOUBLE_QUOTED_SPECIAL.test(quoted)) return null;
      word = (word ?? '') + quoted;
      index = end;
    } else if (PLAIN.test(char)) {
      word = (word ?? '') + char;
    } else {
      return null;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
