/** A pattern ready for the line matcher, or why it cannot be used. */
export type CompiledPattern = { ok: true; source: string; flags: string } | { ok: false; message: string };

/** POSIX bracket classes (`[[:space:]]`) as RE2 class contents (`space` as `\\s` plus `\\v`, as POSIX). */
const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  blank: ' \\t',
  cntrl: '\\x00-\\x1f\\x7f',
  digit: '0-9',
  graph: '\\x21-\\x7e',
  lower: 'a-z',
  print: '\\x20-\\x7e',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\s\\v',
  upper: 'A-Z',
  xdigit: '0-9A-Fa-f',
};

/** JavaScript's `\\uXXXX` / `\\u{X…}` at `at` as RE2's `\\x{…}`, or null. */
function unicodeEscape(pattern: string, at: number): { text: string; length: number } | null {
  if (pattern[at + 1] !== 'u') return null;
  const four = /^[0-9A-Fa-f]{4}/.exec(pattern.slice(at + 2, at + 6));
  if (four) return { text: `\\x{${four[0]}}`, length: 6 };
  const close = pattern.indexOf('}', at + 3);
  const braced = pattern[at + 2] === '{' && close > at + 3 && close <= at + 9 ? pattern.slice(at + 3, close) : '';
  return /^[0-9A-Fa-f]+$/.test(braced) ? { text: `\\x{${braced}}`, length: close - at + 1 } : null;
}

/**
 * Translate the few POSIX ERE / GNU grep spellings that JavaScript reads differently:
 * `[[:alpha:]]`-style classes inside brackets, and the word boundaries `\<` and `\>` (→ `\b`).
 * Everything else is passed through; ERE syntax is otherwise a subset of JavaScript's.
 */
export function translateEre(pattern: string): string {
  // Unchanged runs are copied as slices, replacements pushed between them: linear, and few strings.
  const parts: string[] = [];
  let copiedTo = 0;
  const replace = (from: number, to: number, text: string): void => {
    parts.push(pattern.slice(copiedTo, from), text);
    copiedTo = to;
  };
  let inBracket = false;
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (!inBracket) {
      if (char === '\\' && i + 1 < pattern.length) {
        const unicode = unicodeEscape(pattern, i);
        const next = pattern[i + 1] as string;
        if (unicode) replace(i, i + unicode.length, unicode.text);
        else if (next === '<' || next === '>') replace(i, i + 2, '\\b');
        i += unicode ? unicode.length : 2;
        continue;
      }
      if (char === '[') {
        inBracket = true;
        i += 1;
        // A `]` right after `[` or `[^` is a literal member, not the end of the bracket.
        if (pattern[i] === '^') i += 1;
        if (pattern[i] === ']') {
          replace(i, i + 1, '\\]');
          i += 1;
        }
        continue;
      }
      i += 1;
      continue;
    }
    // The longest class name is 6 letters: look no further (a scan per `[:` to the end would be quadratic).
    const nameLength = pattern.startsWith('[:', i) ? pattern.slice(i + 2, i + 10).indexOf(':]') : -1;
    const close = nameLength < 0 ? -1 : i + 2 + nameLength;
    const name = close > i ? pattern.slice(i + 2, close) : '';
    const posix = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
    if (posix !== undefined) {
      replace(i, close + 2, posix);
      i = close + 2;
      continue;
    }
    if (char === '\\' && i + 1 < pattern.length) {
      const unicode = unicodeEscape(pattern, i);
      if (unicode) replace(i, i + unicode.length, unicode.text);
      i += unicode ? unicode.length : 2;
      continue;
    }
    if (char === ']') inBracket = false;
    i += 1;
  }
  if (copiedTo === 0) return pattern;
  parts.push(pattern.slice(copiedTo));
  return parts.join('');
}

/** Longest pattern accepted (longer ones are refused at once; RE2 refuses far shorter ones as too large). */
export const MAX_PATTERN_LENGTH = 65_536;

const ENGINE_NOTE = 'grep patterns run on RE2 (as ripgrep does), which matches in time linear in the text and cannot express them';

/** Where a pattern uses what RE2 cannot do, an error observation that says what to write instead. */
function unsupported(pattern: string): string | null {
  let inBracket = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index];
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (!inBracket && next >= '1' && next <= '9') {
        return `backreferences such as \`\\${next}\` are not supported: ${ENGINE_NOTE}. Search for the repeated text itself, or a broader pattern, and read the matches.`;
      }
      index += 1;
      continue;
    }
    if (inBracket) {
      if (char === ']') inBracket = false;
      continue;
    }
    if (char === '[') {
      inBracket = true;
      if (pattern[index + 1] === '^') index += 1;
      if (pattern[index + 1] === ']') index += 1;
      continue;
    }
    if (char === '(' && pattern[index + 1] === '?') {
      const kind = pattern.startsWith('(?<=', index) || pattern.startsWith('(?<!', index) ? pattern.slice(index, index + 4) : pattern.startsWith('(?=', index) || pattern.startsWith('(?!', index) ? pattern.slice(index, index + 3) : null;
      if (kind) {
        return `lookahead and lookbehind (\`${kind}\`) are not supported: ${ENGINE_NOTE}. Match the surrounding text as part of the pattern instead (\`foo\\(\` rather than \`foo(?=\\()\`).`;
      }
    }
  }
  return null;
}

/**
 * A grep pattern as RE2 source (POSIX ERE spellings translated, `\\uXXXX` as `\\x{XXXX}`), or why it
 * cannot be used. RE2's own syntax check runs with the search, in the matching worker
 * (`checkPattern`): compiling a pattern can itself take long, and must not hold the event loop.
 */
export function compileGrepPattern(pattern: string, options: { regex?: boolean; caseSensitive?: boolean } = {}): CompiledPattern {
  const flags = options.caseSensitive === false ? 'i' : '';
  if (pattern.length > MAX_PATTERN_LENGTH) return { ok: false, message: `the pattern is longer than ${MAX_PATTERN_LENGTH} characters` };
  if (options.regex === false) return { ok: true, source: quoteLiteral(pattern), flags };
  const problem = unsupported(pattern);
  if (problem) return { ok: false, message: problem };
  return { ok: true, source: translateEre(pattern), flags };
}

/** RE2's words for a refused pattern, without its `error parsing regexp: ` prefix, plus what the flavour is. */
export function patternErrorMessage(message: string): string {
  const reason = message.replace(/^error parsing regexp: /, '');
  return `invalid pattern: ${reason} (patterns use RE2 syntax, as ripgrep: POSIX ERE plus \\d, \\w, \\s, \\b, \\p{L}, (?i); no backreferences or lookaround)`;
}

/** A literal string as an RE2 pattern (grep -F): every character that means something escaped. */
function quoteLiteral(text: string): string {
  let out = '';
  for (const char of text) out += /[\\^$.|?*+()[\]{}]/.test(char) ? `\\${char}` : char;
  return out;
}
