import { type ToolSchema } from '@debug-gym/spec';

/**
 * The tool list for a model without function calling, in the original's SimpleAgent layout, followed by
 * how to call a tool (`<function=NAME><parameter=KEY>VALUE</parameter></function>`).
 */
export function renderToolsAsText(tools: readonly ToolSchema[]): string {
  const blocks = tools.map((tool, index) => {
    const { name, description, parameters } = tool.function;
    const required = new Set(parameters.required ?? []);
    const entries = Object.entries(parameters.properties);
    const lines = entries.map(([key, property], position) => {
      const types = [property.type].flat();
      const optional = types.includes('null') || !required.has(key);
      const shown = types.filter((type) => type !== 'null').join(', ');
      return `(${position + 1}) ${key} (${shown}, ${optional ? 'optional' : 'required'}): ${property.description ?? ''}`.trimEnd();
    });
    const body = lines.length > 0 ? lines.join('\n') : 'No parameters are required for this function.';
    return `---- BEGIN FUNCTION #${index + 1}: ${name} ----\nDescription: ${description}\n\nParameters:\n${body}\n---- END FUNCTION #${index + 1}: ${name} ----`;
  });
  return [
    'You have access to the following functions:',
    '',
    blocks.join('\n\n'),
    '',
    'To call a function, answer with exactly one block in this format (text before it is your reasoning):',
    '',
    '<function=NAME>',
    '<parameter=KEY>VALUE</parameter>',
    '</function>',
    '',
    'Call exactly one function per answer. Leave out optional parameters you do not need. Values are written as is (no quotes, no escaping); code keeps its indentation.',
  ].join('\n');
}

/** A tool call written back in the text format (for the history of a text-format model). */
export function renderTextToolCall(call: { name: string; arguments: Record<string, unknown> | string }): string {
  if (typeof call.arguments === 'string') return `<function=${call.name}>\n${call.arguments}\n</function>`;
  const parameters = Object.entries(call.arguments).map(([key, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `<parameter=${key}>${text}</parameter>`;
  });
  return [`<function=${call.name}>`, ...parameters, '</function>'].join('\n');
}
