/**
 * JSON as models write it: strict JSON first; failing that, a repaired copy where trailing commas are
 * dropped, single-quoted strings and unquoted keys are quoted, raw newlines and tabs inside strings are
 * escaped, and Python's `True`/`False`/`None` become JSON literals. Returns undefined when even the
 * repaired text does not parse.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(repairJson(text));
    } catch {
      return undefined;
    }
  }
}

const LITERALS: Record<string, string> = { True: 'true', False: 'false', None: 'null', true: 'true', false: 'false', null: 'null' };

export function repairJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '"' || ch === "'") {
      const [literal, end] = readString(text, i, ch);
      out += literal;
      i = end;
      continue;
    }
    if (ch === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j += 1;
      if (text[j] === '}' || text[j] === ']') {
        i += 1; // trailing comma
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(ch)) {
      let j = i;
      while (j < text.length && /[\w$-]/.test(text[j] as string)) j += 1;
      const word = text.slice(i, j);
      let k = j;
      while (k < text.length && /\s/.test(text[k] as string)) k += 1;
      if (text[k] === ':') out += JSON.stringify(word); // unquoted key
      else out += LITERALS[word] ?? word;
      i = j;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i += 1; // line comment
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}

/** Read a string starting at `start` (quote `quote`); return it as a valid double-quoted JSON string. */
function readString(text: string, start: number, quote: string): [string, number] {
  let value = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '\\' && i + 1 < text.length) {
      const next = text[i + 1] as string;
      if (next === "'" && quote === "'") value += "'";
      else if ('"\\/bfnrtu'.includes(next)) value += ch + next;
      else value += '\\\\' + next; // an escape JSON lacks (\d in a regex): keep the backslash literally
      i += 2;
      continue;
    }
    if (ch === quote) return ['"' + value + '"', i + 1];
    if (ch === '"') value += '\\"';
    else if (ch === '\n') value += '\\n';
    else if (ch === '\r') value += '\\r';
    else if (ch === '\t') value += '\\t';
    else value += ch;
    i += 1;
  }
  return ['"' + value + '"', i];
}

/**
 * Every top-level `{...}` span in `text` whose braces balance (strings respected), in order, with
 * its start offset. Prose around and between objects is skipped.
 *
 * Linear in the text (it is the model's answer): an unbalanced `{` is scanned to the end once, and that
 * scan also answers for every later `{` it met outside a string (their scans would follow the same
 * strings, their depth offset by a constant). Only a `{` that scan met inside a string needs a scan of
 * its own; those rescans share a budget of a few passes over the text, after which the search stops.
 */
export function findJsonObjects(text: string): Array<{ start: number; end: number; text: string }> {
  const found: Array<{ start: number; end: number; text: string }> = [];
  let known: Map<number, number> | null = null;
  let budget = 8 * text.length + 100_000;
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('{', i);
    if (open < 0) break;
    let end: number | undefined = known?.get(open);
    if (end === undefined) {
      const scan = scanBraces(text, open);
      budget -= scan.cost;
      end = scan.end;
      known = end < 0 ? scan.ends : null;
      if (end < 0 && budget < 0) break;
    }
    if (end < 0) {
      i = open + 1;
      continue;
    }
    found.push({ start: open, end, text: text.slice(open, end) });
    i = end;
  }
  return found;
}

/**
 * The end (after the closing brace) of the object opened at `open`, or -1 when it never closes; and,
 * for a scan that does not close, the same answer for every `{` after `open` met outside a string.
 */
function scanBraces(text: string, open: number): { end: number; ends: Map<number, number>; cost: number } {
  const ends = new Map<number, number>();
  const stack: number[] = [];
  let quote: string | null = null;
  for (let i = open; i < text.length; i += 1) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i += 1;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{') {
      stack.push(i);
      ends.set(i, -1);
    } else if (ch === '}' && stack.length > 0) {
      ends.set(stack.pop() as number, i + 1);
      if (stack.length === 0) return { end: i + 1, ends, cost: i + 1 - open };
    }
  }
  return { end: -1, ends, cost: text.length - open };
}
