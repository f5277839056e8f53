import { RE2JS } from 're2js';

/**
 * Globs in grep's `path`, matched in linear time. The agent writes both the glob and the file names
 * it is matched against, so a backtracking matcher (picomatch compiles to a JavaScript RegExp: `*a*a*a…b`
 * against a long name of `a`s takes minutes) would let one agent stall the server's event loop. The glob
 * is translated to an RE2 pattern and run by re2js, whose time is linear in the path.
 *
 * Syntax: `*` (any characters but `/`), `?` (one), `[abc]` / `[a-z]` / `[!abc]` / `[^abc]` / `[[:alpha:]]`,
 * `**` as a whole segment (any number of folders), `{a,b}` (alternatives, nested), `\x` (a literal x).
 * As picomatch's defaults: wildcards do not match a name's leading `.` (write it: `.*`, `src/.github/*`);
 * a bracket that lists `.` does, and so does a negated one that does not list it. Unlike picomatch, a
 * bracket never matches `/` and `[!a]` is POSIX's negation; extglobs (`@(a|b)`) are not globs here.
 */

/** Longest glob accepted: longer ones are refused with a message (no real path comes near it). */
export const MAX_GLOB_LENGTH = 256;
/** Deepest nesting of `{…}` accepted. */
const MAX_BRACE_DEPTH = 8;

const GLOB_CHARACTERS = new Set(['*', '?', '[', '{']);
/** Stands for a name's leading `.` in the path the pattern is matched against. */
const LEADING_DOT = '\u0000';
/** A non-empty name that does not start with `.`. */
const NAME = `[^/${LEADING_DOT}][^/]*`;

export interface ScannedGlob {
  /** Whether the path has an unescaped glob character at all. */
  isGlob: boolean;
  /** `./` when the path starts with it (it is kept in the names shown). */
  prefix: string;
  /** The leading folders without glob characters (`src` of `src/**\/*.py`), '' when there are none. */
  base: string;
  /** The rest (`**\/*.py`). */
  glob: string;
}

/** Split a path argument into its literal base folder and its glob, as picomatch's `scan` does for these globs. */
export function scanGlob(path: string): ScannedGlob {
  const prefix = path.startsWith('./') ? './' : '';
  const rest = path.slice(prefix.length);
  let firstGlob = -1;
  for (let index = 0; index < rest.length; index += 1) {
    const char = rest[index] as string;
    if (char === '\\') {
      index += 1;
      continue;
    }
    if (GLOB_CHARACTERS.has(char)) {
      firstGlob = index;
      break;
    }
  }
  if (firstGlob < 0) return { isGlob: false, prefix, base: rest, glob: '' };
  const slash = rest.lastIndexOf('/', firstGlob);
  return slash < 0 ? { isGlob: true, prefix, base: '', glob: rest } : { isGlob: true, prefix, base: rest.slice(0, slash), glob: rest.slice(slash + 1) };
}

export type GlobMatcher = (path: string) => boolean;

/** A compiled glob, or why it cannot be used. */
export type CompiledGlob = { ok: true; match: GlobMatcher } | { ok: false; message: string };

/**
 * Compile a glob matched against whole relative paths (`src/a.py`) or names. `literalBase` (a
 * folder, taken literally) is put in front of it.
 */
export function compileGlob(glob: string, literalBase = ''): CompiledGlob {
  if (glob.length + literalBase.length > MAX_GLOB_LENGTH) return { ok: false, message: `the path pattern is longer than ${MAX_GLOB_LENGTH} characters` };
  let source: string;
  try {
    const base = literalBase === '' || literalBase === '.' ? '' : `${literalSegments(literalBase)}/`;
    source = base + translate(glob, 0, glob.length, true, 0);
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  let pattern: RE2JS;
  try {
    pattern = RE2JS.compile(source, RE2JS.DISABLE_UNICODE_GROUPS);
  } catch (error) {
    return { ok: false, message: `invalid path pattern: ${(error as Error).message}` };
  }
  return { ok: true, match: (path) => pattern.testExact(markLeadingDots(path)) };
}

/** `a/.b/.c` → `a/\0b/\0c`: the names' leading dots as the character the pattern reserves for them. */
function markLeadingDots(path: string): string {
  if (!path.includes('.')) return path;
  let out = '';
  let start = 0;
  for (let index = 0; index <= path.length; index += 1) {
    if (index < path.length && path[index] !== '/') continue;
    const name = path.slice(start, index);
    out += (start > 0 ? '/' : '') + (name.startsWith('.') ? LEADING_DOT + name.slice(1) : name);
    start = index + 1;
  }
  return out;
}

/** A literal folder path (already resolved, no glob meaning) as pattern text. */
function literalSegments(path: string): string {
  return path
    .split('/')
    .map((name) => (name.startsWith('.') ? LEADING_DOT + RE2JS.quote(name.slice(1)) : RE2JS.quote(name)))
    .join('/');
}

/** The `]` that closes a bracket opened at `open`, or -1 (then the `[` is a literal). */
function bracketEnd(glob: string, open: number, end: number): number {
  let index = open + 1;
  if (glob[index] === '!' || glob[index] === '^') index += 1;
  if (glob[index] === ']') index += 1;
  while (index < end) {
    const char = glob[index];
    if (char === '\\') index += 2;
    else if (char === '[' && glob[index + 1] === ':') {
      const close = glob.indexOf(':]', index + 2);
      index = close >= 0 && close < end ? close + 2 : index + 1;
    } else if (char === ']') return index;
    else index += 1;
  }
  return -1;
}

/** POSIX classes that contain `/`, spelled out without it (a bracket never matches the separator). */
const POSIX_WITHOUT_SLASH: Record<string, string> = {
  punct: '!-.:-@\\[-`{-~',
  graph: '!-.0-~',
  print: ' -.0-~',
};

/** A code point as an RE2 escape: nothing in it needs quoting. */
function hex(codePoint: number): string {
  return `\\x{${codePoint.toString(16)}}`;
}

/**
 * A bracket `[…]` as an RE2 class that never matches `/`: single characters, ranges (split around `/`)
 * and POSIX classes. At a name's start a positive bracket matches a leading `.` only if it lists one.
 */
function bracket(glob: string, open: number, close: number, atNameStart: boolean): string {
  let index = open + 1;
  const negated = glob[index] === '!' || glob[index] === '^';
  if (negated) index += 1;
  let body = '';
  let matchesDot = false;
  const read = (): number => {
    let char = glob.codePointAt(index) as number;
    if (char === 0x5c && index + 1 < close) {
      index += 1;
      char = glob.codePointAt(index) as number;
    }
    index += char > 0xffff ? 2 : 1;
    return char;
  };
  while (index < close) {
    if (glob[index] === '[' && glob[index + 1] === ':') {
      const end = glob.indexOf(':]', index + 2);
      if (end >= 0 && end < close) {
        const name = glob.slice(index + 2, end);
        body += POSIX_WITHOUT_SLASH[name] ?? `[:${name}:]`;
        if (name === 'punct' || name === 'graph' || name === 'print') matchesDot = true;
        index = end + 2;
        continue;
      }
    }
    const low = read();
    // `a-z` (a `-` first or last is a literal; so is a `]` right after the opening, as in POSIX).
    let high = low;
    if (glob[index] === '-' && index + 1 < close) {
      index += 1;
      high = read();
    }
    if (high < low) throw new Error(`invalid range in the path pattern's bracket: ${String.fromCodePoint(low)}-${String.fromCodePoint(high)}`);
    if (low <= 0x2e && high >= 0x2e) matchesDot = true;
    if (low < 0x2f) body += low === Math.min(high, 0x2e) ? hex(low) : `${hex(low)}-${hex(Math.min(high, 0x2e))}`;
    if (high > 0x2f) body += Math.max(low, 0x30) === high ? hex(high) : `${hex(Math.max(low, 0x30))}-${hex(high)}`;
  }
  // A negated bracket matches a leading `.` unless it lists `.` (as picomatch).
  if (negated) return `[^/${matchesDot ? LEADING_DOT : ''}${body}]`;
  if (body === '') return '[^\\x{0}-\\x{10ffff}]';
  return `[${body}${atNameStart && matchesDot ? LEADING_DOT : ''}]`;
}

/** The `}` that closes a brace opened at `open` and the top-level commas inside it, or null (a literal `{`). */
function braceParts(glob: string, open: number, end: number): { close: number; commas: number[] } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let index = open; index < end; index += 1) {
    const char = glob[index];
    if (char === '\\') index += 1;
    else if (char === '[') {
      const close = bracketEnd(glob, index, end);
      if (close >= 0) index = close;
    } else if (char === '{') depth += 1;
    else if (char === '}') {
      depth -= 1;
      if (depth === 0) return commas.length > 0 ? { close: index, commas } : null;
    } else if (char === ',' && depth === 1) commas.push(index);
  }
  return null;
}

/** Translate `glob[start, end)` into an RE2 pattern (one pass; braces recurse into their parts). */
function translate(glob: string, start: number, end: number, atNameStartInitially: boolean, depth: number): string {
  if (depth > MAX_BRACE_DEPTH) throw new Error(`the path pattern nests \`{…}\` more than ${MAX_BRACE_DEPTH} deep`);
  let out = '';
  let atNameStart = atNameStartInitially;
  let index = start;
  while (index < end) {
    const char = glob[index] as string;
    // `**` as a whole name: any number of folders (none of them hidden).
    if (char === '*' && glob[index + 1] === '*' && atNameStart && (index + 2 === end || glob[index + 2] === '/')) {
      if (index + 2 === end) {
        // `src/**` also matches `src` itself: take back the `/` already written.
        if (out.endsWith('/')) out = `${out.slice(0, -1)}(?:/${NAME})*`;
        else out += `${NAME}(?:/${NAME})*`;
        index += 2;
      } else {
        out += `(?:${NAME}/)*`;
        index += 3;
      }
      atNameStart = true;
      continue;
    }
    if (char === '*') {
      while (glob[index + 1] === '*') index += 1;
      out += atNameStart ? `(?:${NAME})?` : '[^/]*';
    } else if (char === '?') {
      out += atNameStart ? `[^/${LEADING_DOT}]` : '[^/]';
    } else if (char === '[' && bracketEnd(glob, index, end) >= 0) {
      const close = bracketEnd(glob, index, end);
      out += bracket(glob, index, close, atNameStart);
      index = close;
    } else if (char === '{' && braceParts(glob, index, end)) {
      const { close, commas } = braceParts(glob, index, end) as { close: number; commas: number[] };
      const bounds = [index, ...commas, close];
      const alternatives = bounds.slice(0, -1).map((from, part) => translate(glob, from + 1, bounds[part + 1] as number, atNameStart, depth + 1));
      out += `(?:${alternatives.join('|')})`;
      index = close;
    } else {
      let literal = char;
      if (char === '\\' && index + 1 < end) {
        index += 1;
        literal = glob[index] as string;
      }
      if (literal === '/') {
        out += '/';
        atNameStart = true;
        index += 1;
        continue;
      }
      out += literal === '.' && atNameStart ? LEADING_DOT : RE2JS.quote(literal);
    }
    atNameStart = false;
    index += 1;
  }
  return out;
}
