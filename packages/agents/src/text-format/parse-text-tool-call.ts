import { type JsonSchemaObject, type ToolSchema } from '@debug-gym/spec';
import { findJsonObjects, parseLenientJson } from './lenient-json.js';
import { castValue, parseCommandLine } from './parse-command-line.js';

export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
}

export interface TextToolCallParse {
  /** The first tool call found, or null. */
  toolCall: TextToolCall | null;
  /** The text before the call (the model's visible reasoning), trimmed. */
  thought: string;
  /** `<think>` blocks, when the model wrote them inline. */
  reasoning: string | null;
  /** What the model should be told (several calls found, nothing found). */
  notes: string[];
}

interface Candidate {
  start: number;
  end: number;
  call: TextToolCall;
}

const FUNCTION_BLOCK = /<function\s*=\s*["']?([\w.-]+)["']?\s*>([\s\S]*?)(?:<\/function>|(?=<function\s*=)|$)/g;
const FUNCTION_TAG = /<function\s+name\s*=\s*["']([\w.-]+)["']\s*>([\s\S]*?)(?:<\/function>|$)/g;
const PARAMETER = /<parameter\s*=\s*["']?([\w.-]+)["']?\s*>([\s\S]*?)(?:<\/parameter>|(?=<parameter\s*=)|(?=<\/function>)|$)/g;

/**
 * Find the tool call in a model's text answer. Accepted, earliest in the text wins:
 * 1. `<function=NAME><parameter=KEY>VALUE</parameter></function>` (the original's SimpleAgent format;
 *    closing tags may be missing);
 * 2. a JSON object `{"name": ..., "arguments": {...}}` — bare, in a code fence, or in `<tool_call>` tags;
 *    also `{"function": {"name", "arguments"}}`, `"parameters"`/`"args"`/`"input"` for the arguments, and
 *    arguments given as a JSON string. Trailing commas, single quotes and Python literals are tolerated;
 * 3. a fenced command naming a known tool, as in debug-gym 1.0: ```` ```pdb b 12``` ````.
 * `<think>...</think>` is set apart as reasoning first. Values are cast by the tool's schema when `tools` is given.
 */
export function parseTextToolCall(text: string | null | undefined, tools: readonly ToolSchema[] = []): TextToolCallParse {
  const { visible, reasoning } = splitThinking(text ?? '');
  const candidates = [...functionBlocks(visible, tools), ...jsonCalls(visible, tools), ...fencedCommands(visible, tools)];
  candidates.sort((a, b) => a.start - b.start);
  // A call written inside another one (a dict in rewrite's code) is data, not a second call.
  // (In one pass: a candidate is outer when it starts at or after the furthest end of every earlier one.)
  let furthestEnd = -1;
  const outer = candidates.filter((candidate) => {
    const inside = candidate.start < furthestEnd;
    furthestEnd = Math.max(furthestEnd, candidate.end);
    return !inside;
  });
  const first = outer[0];
  if (!first) {
    return { toolCall: null, thought: visible.trim(), reasoning, notes: ['No tool call was found in the answer.'] };
  }
  const distinct = outer.length;
  const notes = distinct > 1 ? [`The answer contained ${distinct} tool calls; only the first one (${first.call.name}) was used. Call one tool per answer.`] : [];
  return { toolCall: first.call, thought: cleanThought(visible.slice(0, first.start)), reasoning, notes };
}

const THINKING_TAGS = ['think', 'thinking', 'reasoning'] as const;

/**
 * `text.indexOf(needle, from)`, remembering the answer: asked again from further on, it answers
 * without searching again while the remembered occurrence (or its absence) still holds. Repeated
 * searches for the closing tag of many unclosed openings cost one pass, not one pass each.
 */
function memoIndexOf(text: string): (needle: string, from: number) => number {
  const memo = new Map<string, { from: number; at: number }>();
  return (needle, from) => {
    const known = memo.get(needle);
    if (known && known.from <= from && (known.at === -1 || known.at >= from)) return known.at;
    const at = text.indexOf(needle, from);
    memo.set(needle, { from, at });
    return at;
  };
}

/**
 * `<think>…</think>` (or `thinking`, `reasoning`) blocks set apart, as
 * `/<(think|thinking|reasoning)>([\s\S]*?)<\/\1>/g` would, in one pass: that pattern rescans to the end
 * of the text from every unclosed opening tag (quadratic in what the model wrote).
 */
function removeThinkingBlocks(text: string, parts: string[]): string {
  const closeAt = memoIndexOf(text);
  const kept: string[] = [];
  let last = 0;
  let position = 0;
  for (let open = text.indexOf('<', position); open >= 0; open = text.indexOf('<', position)) {
    const tag = THINKING_TAGS.find((name) => text.startsWith(`<${name}>`, open));
    const bodyStart = tag === undefined ? -1 : open + tag.length + 2;
    const close = tag === undefined ? -1 : closeAt(`</${tag}>`, bodyStart);
    if (tag === undefined || close < 0) {
      position = open + 1;
      continue;
    }
    parts.push(text.slice(bodyStart, close).trim());
    kept.push(text.slice(last, open));
    last = close + tag.length + 3;
    position = last;
  }
  kept.push(text.slice(last));
  return kept.join('');
}

/**
 * The fenced blocks of `/```([\w-]*)[ \t]*\n?([\s\S]*?)```/g` (language, body, where), in one pass:
 * that pattern is quadratic on an unclosed fence followed by a long word. Once a fence has no closing
 * fence after it, no later one has either.
 */
function fencedBlocks(text: string): Array<{ index: number; end: number; language: string; body: string }> {
  const blocks: Array<{ index: number; end: number; language: string; body: string }> = [];
  const isLanguageChar = (code: number): boolean =>
    (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f || code === 0x2d;
  for (let open = text.indexOf('```'); open >= 0; ) {
    let index = open + 3;
    while (index < text.length && isLanguageChar(text.charCodeAt(index))) index += 1;
    const language = text.slice(open + 3, index);
    while (text[index] === ' ' || text[index] === '\t') index += 1;
    if (text[index] === '\n') index += 1;
    const close = text.indexOf('```', index);
    if (close < 0) break;
    blocks.push({ index: open, end: close + 3, language, body: text.slice(index, close) });
    open = text.indexOf('```', close + 3);
  }
  return blocks;
}

function splitThinking(text: string): { visible: string; reasoning: string | null } {
  const parts: string[] = [];
  let visible = removeThinkingBlocks(text, parts);
  const orphanClose = /^([\s\S]*?)<\/(think|thinking|reasoning)>/.exec(visible);
  if (orphanClose) {
    parts.push((orphanClose[1] as string).trim());
    visible = visible.slice(orphanClose[0].length);
  }
  return { visible, reasoning: parts.length > 0 ? parts.filter(Boolean).join('\n\n') : null };
}

function cleanThought(text: string): string {
  return text.replace(/<tool_call>\s*$/, '').replace(/```[\w-]*\s*$/, '').trim();
}

function functionBlocks(text: string, tools: readonly ToolSchema[]): Candidate[] {
  const found: Candidate[] = [];
  for (const pattern of [FUNCTION_BLOCK, FUNCTION_TAG]) {
    for (const match of text.matchAll(pattern)) {
      const name = match[1] as string;
      const body = match[2] as string;
      const schema = schemaOf(tools, name);
      const args: Record<string, unknown> = {};
      let sawParameter = false;
      for (const parameter of body.matchAll(PARAMETER)) {
        sawParameter = true;
        const key = parameter[1] as string;
        args[key] = castParameter(parameter[2] as string, schema, key);
      }
      const inline = body.trim();
      const call: TextToolCall =
        !sawParameter && inline.startsWith('{') ? { name, arguments: asArguments(parseLenientJson(inline) ?? inline) } : { name, arguments: args };
      found.push({ start: match.index, end: match.index + match[0].length, call });
    }
  }
  return found;
}

function jsonCalls(text: string, tools: readonly ToolSchema[]): Candidate[] {
  const found: Candidate[] = [];
  for (const object of findJsonObjects(text)) {
    const parsed = parseLenientJson(object.text);
    const call = toCall(parsed, tools);
    if (call) found.push({ start: object.start, end: object.end, call });
  }
  return found;
}

function toCall(value: unknown, tools: readonly ToolSchema[]): TextToolCall | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const object = value as Record<string, unknown>;
  if (object.function && typeof object.function === 'object') return toCall(object.function, tools);
  const name = [object.name, object.tool, object.tool_name, object.function].find((item): item is string => typeof item === 'string');
  if (!name) return null;
  const rawArgs = object.arguments ?? object.parameters ?? object.args ?? object.input ?? object.tool_input;
  const hasArgs = rawArgs !== undefined;
  // Plain data that happens to have a `name` key is not a call, unless the name is a known tool.
  if (!hasArgs && !tools.some((tool) => tool.function.name === name)) return null;
  if (tools.length > 0 && !hasArgs && Object.keys(object).length > 1) return null;
  return { name, arguments: asArguments(typeof rawArgs === 'string' ? (parseLenientJson(rawArgs) ?? rawArgs) : (rawArgs ?? {})) };
}

function asArguments(value: unknown): Record<string, unknown> | string {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function fencedCommands(text: string, tools: readonly ToolSchema[]): Candidate[] {
  if (tools.length === 0) return [];
  const names = new Set(tools.map((tool) => tool.function.name));
  const found: Candidate[] = [];
  for (const block of fencedBlocks(text)) {
    const { language } = block;
    // ```pdb b 12``` (1.0 style: the "language" slot holds the tool name), or ```\npdb b 12\n```.
    const line = names.has(language) ? `${language} ${block.body}` : language === '' || language === 'bash' || language === 'text' ? block.body : '';
    const command = line.trim();
    const name = command.split(/\s+/)[0] ?? '';
    if (!names.has(name) || command.includes('\n')) continue;
    const parsed = parseCommandLine(command, tools);
    if (parsed.ok) found.push({ start: block.index, end: block.end, call: { name: parsed.name, arguments: parsed.arguments } });
  }
  return found;
}

function schemaOf(tools: readonly ToolSchema[], name: string): JsonSchemaObject | undefined {
  return tools.find((tool) => tool.function.name === name)?.function.parameters;
}

/**
 * A parameter value as written: the newline right after the opening tag and trailing whitespace are
 * dropped. Leading spaces are kept for code-like parameters (`new_code`, `content`, ...: they are
 * indentation) and multi-line values, and trimmed elsewhere (`<parameter=path> app.py </parameter>`).
 */
function castParameter(raw: string, schema: JsonSchemaObject | undefined, key: string): unknown {
  let value = raw.replace(/^[ \t]*\r?\n/, '').trimEnd();
  if (!value.includes('\n') && !/code|content|text|snippet/i.test(key)) value = value.trim();
  if (!schema || !schema.properties[key]) return value;
  const types = [schema.properties[key]?.type].flat();
  return types.includes('string') && !/^(null|None)$/.test(value.trim()) ? value : castValue(value, schema, key);
}
