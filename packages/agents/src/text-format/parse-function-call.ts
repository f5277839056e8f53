import type { ToolSchema } from '@debug-gym/spec';

/** What the original SimpleAgent reads from an answer: the thought before the first call, and that call. */
export interface FunctionCallParse {
  /** Everything before the first `<function=` block, trimmed (the whole answer, trimmed, when there is none). */
  thought: string;
  /** The first `<function=NAME>...</function>` block's call, or null when there is none. */
  call: { name: string; arguments: Record<string, unknown> } | null;
  /** Why a block that looked like a call gave none, or that more calls were left out. */
  notes: string[];
}

const OPEN = '<function=';
const CLOSE = '</function>';
const PARAMETER = '<parameter';
const PARAMETER_CLOSE = '</parameter>';

/**
 * The original SimpleAgent's `parse_thought_and_tool` + `parse_tool_calls`, as one linear scan (no
 * backtracking regex on model text): the first `<function=` up to the first `</function>` after it is the
 * call; its name runs to the first `>`; each `<parameter = KEY>VALUE</parameter>` inside is an argument,
 * key trimmed, value trimmed (a value of several lines keeps its first line's indentation); values are cast by the tool's schema (numbers, integers, booleans), as its
 * `_cast_param` does. Without a closed block the whole answer is the thought and there is no call.
 */
export function parseFunctionCall(text: string, tools: readonly ToolSchema[] = []): FunctionCallParse {
  const open = text.indexOf(OPEN);
  const close = open < 0 ? -1 : text.indexOf(CLOSE, open + OPEN.length);
  if (open < 0 || close < 0) return { thought: text.trim(), call: null, notes: [] };
  const thought = text.slice(0, open).trim();
  const notes: string[] = [];
  const block = text.slice(open + OPEN.length, close);
  const nameEnd = block.indexOf('>');
  const name = nameEnd < 0 ? '' : block.slice(0, nameEnd).trim();
  if (!name) {
    notes.push('The function call has no name: write it as <function=NAME> ... </function>.');
    return { thought, call: null, notes };
  }
  const properties = tools.find((tool) => tool.function.name === name)?.function.parameters.properties ?? {};
  const args: Record<string, unknown> = {};
  let at = nameEnd + 1;
  for (;;) {
    const start = block.indexOf(PARAMETER, at);
    if (start < 0) break;
    let cursor = start + PARAMETER.length;
    while (cursor < block.length && isSpace(block.charCodeAt(cursor))) cursor += 1;
    if (block[cursor] !== '=') {
      at = cursor;
      continue;
    }
    const keyEnd = block.indexOf('>', cursor + 1);
    if (keyEnd < 0) break;
    const valueEnd = block.indexOf(PARAMETER_CLOSE, keyEnd + 1);
    if (valueEnd < 0) break;
    const key = block.slice(cursor + 1, keyEnd).trim();
    if (key) args[key] = castParameter(trimValue(block.slice(keyEnd + 1, valueEnd)), properties[key]?.type);
    at = valueEnd + PARAMETER_CLOSE.length;
  }
  if (text.indexOf(OPEN, close + CLOSE.length) >= 0) notes.push('Multiple tool calls detected, using the first one.');
  return { thought, call: { name, arguments: args }, notes };
}

/**
 * The original strips every value (`param_value.strip()`), which takes the indentation off the first line
 * of code. A value that spans lines keeps its first line's indentation here: only the line breaks around it
 * and trailing whitespace go. One-line values are stripped as in the original.
 */
function trimValue(raw: string): string {
  let start = 0;
  let end = raw.length;
  while (end > start && isSpace(raw.charCodeAt(end - 1))) end -= 1;
  let lineStart = start;
  for (let index = start; index < end; index += 1) {
    const code = raw.charCodeAt(index);
    if (code === 10) lineStart = index + 1;
    else if (!isSpace(code)) break;
  }
  start = lineStart;
  const value = raw.slice(start, end);
  return value.includes('\n') ? value : value.trim();
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11;
}

/**
 * `_cast_param`: for each type of the schema in order, `number` → an integer when there is no `.`, else a
 * float; `boolean` → true for `true`/`1`, false for `false`/`0` (any case). We also cast `integer` (the
 * original's tools declare `number`; ours declare `integer`). Anything else stays text.
 */
export function castParameter(value: string, type: string | readonly string[] | undefined): unknown {
  if (type === undefined) return value;
  for (const kind of [type].flat()) {
    if (kind === 'number' || kind === 'integer') {
      const parsed = value.includes('.') ? Number.parseFloat(value) : Number.parseInt(value, 10);
      if (/^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(value) && Number.isFinite(parsed) && (kind === 'number' || Number.isInteger(parsed))) return parsed;
      continue;
    }
    if (kind === 'boolean') {
      const lower = value.toLowerCase();
      if (lower === 'true' || lower === '1') return true;
      if (lower === 'false' || lower === '0') return false;
    }
  }
  return value;
}
