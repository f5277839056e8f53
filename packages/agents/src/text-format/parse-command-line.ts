import { type JsonSchemaObject, type ToolSchema } from '@debug-gym/spec';
import { usage, validateArguments } from '@debug-gym/plugin-kit';
import { parseLenientJson } from './lenient-json.js';

export type CommandLineParse =
  | { ok: true; name: string; arguments: Record<string, unknown> }
  | { ok: false; message: string };

/**
 * Parse a tool call typed as a command line, validated against the tool's schema:
 * - `pdb b 12` — the rest of the line goes to the tool's single text argument (`command`);
 * - `view path=app.py start=3` — named arguments; values may be quoted (`new_code="x = 1\n"` takes
 *   JSON escapes, single quotes are literal); numbers and booleans follow the schema;
 * - `view {"path": "app.py"}` or `{"name": "view", "arguments": {"path": "app.py"}}` — JSON.
 * Never throws: a typo gives `{ ok: false, message }` with what to type instead.
 */
export function parseCommandLine(line: string, tools: readonly ToolSchema[]): CommandLineParse {
  const text = line.trim();
  const names = tools.map((tool) => tool.function.name);
  if (!text) return { ok: false, message: `Type a tool call, e.g. \`${example(tools)}\`. Tools: ${names.join(', ')}.` };
  let name: string;
  let rest: string;
  if (text.startsWith('{')) {
    const parsed = parseLenientJson(text) as { name?: unknown; arguments?: unknown } | undefined;
    if (!parsed || typeof parsed !== 'object' || typeof parsed.name !== 'string') {
      return { ok: false, message: 'That JSON is not a tool call: write {"name": "<tool>", "arguments": {...}}.' };
    }
    name = parsed.name;
    rest = parsed.arguments === undefined ? '' : typeof parsed.arguments === 'string' ? parsed.arguments : JSON.stringify(parsed.arguments);
  } else {
    // The first word, then the rest after the whitespace that follows it (a scan: linear whatever the model wrote).
    let end = 0;
    while (end < text.length && (text[end] as string).trim() !== '') end += 1;
    let restStart = end;
    while (restStart < text.length && (text[restStart] as string).trim() === '') restStart += 1;
    name = text.slice(0, end);
    rest = text.slice(restStart);
  }
  const tool = tools.find((candidate) => candidate.function.name === name);
  if (!tool) {
    const guess = closest(name, names);
    return { ok: false, message: `Unknown tool '${name}'.${guess ? ` Did you mean '${guess}'?` : ''} Tools: ${names.join(', ')}.` };
  }
  const schema = tool.function.parameters;
  const args = parseArguments(rest.trim(), schema);
  if (!args.ok) return { ok: false, message: `${args.message} ${usage(name, schema)}` };
  const check = validateArguments(name, schema, args.value);
  if (!check.ok) return { ok: false, message: check.message };
  return { ok: true, name, arguments: check.args };
}

type ArgumentsParse = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

function parseArguments(rest: string, schema: JsonSchemaObject): ArgumentsParse {
  if (!rest) return { ok: true, value: {} };
  if (rest.startsWith('{')) {
    const parsed = parseLenientJson(rest);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { ok: true, value: parsed as Record<string, unknown> };
    return { ok: false, message: 'The arguments look like JSON but do not parse.' };
  }
  const tokens = tokenize(rest);
  const keys = Object.keys(schema.properties);
  // `name=value ...` (the first word has the form): named arguments only. Anything else: one free-text argument.
  if (/^[A-Za-z_][\w-]*=/.test(rest)) {
    if (!tokens) return { ok: false, message: `Could not read the arguments \`${rest}\`: a quote is not closed. Write them as name=value.` };
    const unknown = tokens.find((token) => token.key === undefined || !keys.includes(token.key));
    if (unknown) {
      return { ok: false, message: unknown.key === undefined ? `Could not read \`${unknown.value}\`: write every argument as name=value.` : `Unknown argument '${unknown.key}'.` };
    }
    const value: Record<string, unknown> = {};
    for (const token of tokens) value[token.key as string] = castValue(token.value, schema, token.key as string, token.quoted);
    return { ok: true, value };
  }
  const free = freeTextParameter(schema);
  if (free) return { ok: true, value: { [free]: rest } };
  return { ok: false, message: `Could not read the arguments \`${rest}\`: write them as name=value.` };
}

/** The argument a bare line fills: the only string argument, or the only required one. */
function freeTextParameter(schema: JsonSchemaObject): string | undefined {
  const strings = Object.entries(schema.properties).filter(([, property]) => [property.type].flat().includes('string'));
  const required = strings.filter(([key]) => schema.required?.includes(key));
  if (required.length === 1) return required[0]?.[0];
  return strings.length === 1 ? strings[0]?.[0] : undefined;
}

interface Token {
  key?: string;
  value: string;
  quoted: boolean;
}

/** Split `a=1 b="two words"` into tokens; null when a quote is never closed. */
function tokenize(text: string): Token[] | null {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] as string)) i += 1;
    if (i >= text.length) break;
    const keyMatch = /^([A-Za-z_][\w-]*)=/.exec(text.slice(i));
    const key = keyMatch?.[1];
    if (keyMatch) i += keyMatch[0].length;
    const quote = text[i];
    if (quote === '"' || quote === "'") {
      const close = findClosingQuote(text, i + 1, quote);
      if (close < 0) return null;
      const body = text.slice(i + 1, close);
      tokens.push({ ...(key === undefined ? {} : { key }), value: quote === '"' ? unescapeDouble(body) : body, quoted: true });
      i = close + 1;
    } else {
      let end = i;
      while (end < text.length && !/\s/.test(text[end] as string)) end += 1;
      tokens.push({ ...(key === undefined ? {} : { key }), value: text.slice(i, end), quoted: false });
      i = end;
    }
  }
  return tokens;
}

function findClosingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i += 1) {
    if (text[i] === '\\' && quote === '"') i += 1;
    else if (text[i] === quote) return i;
  }
  return -1;
}

function unescapeDouble(body: string): string {
  try {
    return JSON.parse(`"${body.replace(/\n/g, '\\n').replace(/\t/g, '\\t')}"`) as string;
  } catch {
    return body;
  }
}

/** Turn a typed value into what the schema expects (numbers, booleans, null); text stays text. */
export function castValue(value: string, schema: JsonSchemaObject, key: string, quoted = false): unknown {
  const types = [schema.properties[key]?.type ?? 'string'].flat();
  if (quoted && types.includes('string')) return value;
  const trimmed = value.trim();
  if (types.includes('null') && /^(null|none)$/i.test(trimmed)) return null;
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (types.includes('boolean')) {
    if (/^(true|1|yes)$/i.test(trimmed)) return true;
    if (/^(false|0|no)$/i.test(trimmed)) return false;
  }
  if ((types.includes('array') || types.includes('object')) && /^[[{]/.test(trimmed)) {
    const parsed = parseLenientJson(trimmed);
    if (parsed !== undefined) return parsed;
  }
  return value;
}

function example(tools: readonly ToolSchema[]): string {
  return tools.some((tool) => tool.function.name === 'view') ? 'view path=app.py start=3' : (tools[0]?.function.name ?? 'eval');
}

function closest(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of names) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(name.length / 3)) ? best : undefined;
}

/** Optimal string alignment distance: edits, with a swap of two neighbours counting as one. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}
