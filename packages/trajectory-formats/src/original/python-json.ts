/**
 * JSON text as Python's `json.dumps(value)` writes it with its defaults (`", "` and `": "` separators,
 * `ensure_ascii=True`): how the original serializes tool-call arguments in the prompts it logs
 * (`OpenAILLM.convert_response_to_message`: `json.dumps(response.tool.arguments)`).
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => `${asciiString(key)}: ${pythonJsonDumps(item)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string') return asciiString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  return JSON.stringify(value);
}

/** A JSON string with every character outside printable ASCII escaped as `\uXXXX` (Python's `ensure_ascii`). */
function asciiString(text: string): string {
  let out = '"';
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] as string;
    const code = text.charCodeAt(index);
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char === '\b') out += '\\b';
    else if (char === '\f') out += '\\f';
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}
