import type { PytestSummary } from '@debug-gym/spec';


const COUNT_WORDS: Record<string, keyof Omit<PytestSummary, 'collected' | 'total' | 'collectionError' | 'summaryFound' | 'failedTests'>> = {
  passed: 'passed',
  failed: 'failed',
  error: 'errors',
  errors: 'errors',
  skipped: 'skipped',
  xfailed: 'xfailed',
  xpassed: 'xpassed',
};

// Every function here reads what the code under test printed, on the server's event loop: each is a
// scan of the text or an anchored regular expression that cannot backtrack (no two adjacent quantifiers
// that can take the same characters), so its time is linear in the output.

type CountField = (typeof COUNT_WORDS)[string];

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const isWordChar = (code: number): boolean => isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
/** `=` or whitespace (the set `String.prototype.trim` removes, which is `\s`). */
const isRuleOrSpace = (char: string): boolean => char === '=' || char.trim() === '';

/** The line without the `=` rules and whitespace around it. */
function stripRules(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && isRuleOrSpace(line[start] as string)) start += 1;
  while (end > start && isRuleOrSpace(line[end - 1] as string)) end -= 1;
  return line.slice(start, end);
}

/** `[\d.]+s` exactly: a duration such as `0.12s`. */
function isDuration(text: string): boolean {
  if (text.length < 2 || !text.endsWith('s')) return false;
  for (let index = 0; index < text.length - 1; index += 1) {
    const code = text.charCodeAt(index);
    if (!isDigit(code) && code !== 0x2e) return false;
  }
  return true;
}

/**
 * The counts of pytest's final summary line, e.g. `==== 1 failed, 2 passed, 1 warning in 0.12s ====`,
 * `1 passed in 0.01s` (`-q`) or `... in 12.3s (0:00:12) ===`; null when the line is not one.
 * `no tests ran in 0.01s` gives an empty list.
 */
export function summaryCounts(line: string): Array<{ count: number; word: string }> | null {
  let body = stripRules(line);
  // An optional ` (0:00:12)` after the duration: no `)` inside it.
  if (body.endsWith(')')) {
    const open = body.lastIndexOf('(');
    if (open < 1 || body[open - 1] !== ' ' || body.indexOf(')', open) !== body.length - 1) return null;
    body = body.slice(0, open - 1);
  }
  const inAt = body.lastIndexOf(' in ');
  if (inAt < 0 || !isDuration(body.slice(inAt + 4))) return null;
  const counts = body.slice(0, inAt);
  if (counts === 'no tests ran') return [];
  const parts: Array<{ count: number; word: string }> = [];
  for (const part of (counts.endsWith(', ') ? counts.slice(0, -2) : counts).split(', ')) {
    const space = part.indexOf(' ');
    if (space < 1 || space === part.length - 1) return null;
    for (let index = 0; index < part.length; index += 1) {
      const code = part.charCodeAt(index);
      if (index < space ? !isDigit(code) : index > space && !isWordChar(code)) return null;
    }
    parts.push({ count: Number(part.slice(0, space)), word: part.slice(space + 1) });
  }
  return parts;
}

/** `collected N item(s)` anywhere in the line (as `\bcollected (\d+) items?\b`), or null. */
function collectedCount(line: string): number | null {
  let found: number | null = null;
  for (let at = line.indexOf('collected '); at >= 0; at = line.indexOf('collected ', at + 1)) {
    if (at > 0 && isWordChar(line.charCodeAt(at - 1))) continue;
    let end = at + 10;
    while (isDigit(line.charCodeAt(end))) end += 1;
    if (end === at + 10 || !line.startsWith(' item', end)) continue;
    let after = end + 5;
    if (line[after] === 's') after += 1;
    if (isWordChar(line.charCodeAt(after))) continue;
    found = Number(line.slice(at + 10, end));
    break;
  }
  return found;
}

/** A line of pytest's collection-error report: `____ ERROR collecting x.py ____` or `ERROR collecting x.py`. */
function isCollectionErrorLine(line: string): boolean {
  if (line.startsWith('ERROR collecting ')) return true;
  let start = 0;
  while (line[start] === '_') start += 1;
  if (start === 0 || !line.startsWith(' ERROR collecting ', start)) return false;
  let end = line.length;
  while (end > start && line[end - 1] === '_') end -= 1;
  return end < line.length && line[end - 1] === ' ' && end - 1 >= start + 18;
}

/** `Interrupted: N error(s) during collection` anywhere in the output. */
function hasInterruptedCollection(output: string): boolean {
  for (let at = output.indexOf('Interrupted: '); at >= 0; at = output.indexOf('Interrupted: ', at + 1)) {
    let end = at + 13;
    while (isDigit(output.charCodeAt(end))) end += 1;
    if (end === at + 13) continue;
    if (output.startsWith(' error during collection', end) || output.startsWith(' errors during collection', end)) return true;
  }
  return false;
}

/** Parse pytest's output (any verbosity). Pure: no I/O. */
export function parsePytestOutput(output: string): PytestSummary {
  const summary: PytestSummary = {
    passed: 0,
    failed: 0,
    errors: 0,
    skipped: 0,
    xfailed: 0,
    xpassed: 0,
    collected: null,
    total: 0,
    collectionError: false,
    summaryFound: false,
  };
  const lines = output.split('\n');
  for (const line of lines) {
    const collected = collectedCount(line);
    if (collected !== null) summary.collected = collected;
  }
  for (let index = lines.length - 1; index >= 0; index--) {
    const counts = summaryCounts(lines[index] ?? '');
    if (counts === null) continue;
    summary.summaryFound = true;
    for (const { count, word } of counts) {
      const field: CountField | undefined = Object.hasOwn(COUNT_WORDS, word) ? COUNT_WORDS[word] : undefined;
      if (field) summary[field] = count;
    }
    break;
  }
  summary.collectionError = hasInterruptedCollection(output) || lines.some(isCollectionErrorLine);
  const outcomes = summary.passed + summary.failed + summary.skipped + summary.xfailed + summary.xpassed;
  summary.total = summary.collected ?? outcomes + (summary.collectionError ? 0 : summary.errors);
  return summary;
}

/**
 * The original's pytest output clean-up: drop `platform`/`rootdir`/`plugins`/`cachedir` lines,
 * collapse `====` and `----` rules, blank out unittest's `Ran N tests in Xs` timing line.
 */
export function cleanupPytestOutput(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^(platform |rootdir: |plugins: |cachedir: )/.test(line))
    .map((line) => {
      if (/^Ran \d+ tests? in [\d.]+s$/.test(line.trim())) return '';
      if (/^=+$/.test(line)) return '====';
      if (/^-+$/.test(line)) return '----';
      return line;
    })
    .join('\n');
}
