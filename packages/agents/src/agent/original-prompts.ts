import type { EnvInfo, ToolSchema } from '@debug-gym/spec';
import { truncateMiddle } from '@debug-gym/plugin-kit';

/**
 * Prompts of the original debug-gym's current agents (microsoft/debug-gym b19cb6a2,
 * `debug_gym/agents/froggy_agent.py`, `simple_agent.py`, `base_agent.py`), rendered as its Jinja
 * templates render them.
 */

/** `BaseAgent.instance_prompt` (froggy_agent uses it): `Instructions: {{ info.instructions }}`. */
export const FROGGY_INSTANCE_PROMPT = 'Instructions: {{ info.instructions }}';

/** `SimpleAgentArgs.system_prompt`; `{tools_description}` is filled by `describeTools`. */
export const SIMPLE_SYSTEM_PROMPT = `You are a helpful assistant that can interact with a computer to solve tasks.
<IMPORTANT>
* If user provides a path, you should NOT assume it's relative to the current working directory. Instead, you should explore the file system to find the file before working on it.
</IMPORTANT>

You have access to the following functions:

{tools_description}

If you choose to call a function ONLY reply in the following format with NO suffix:

Provide any reasoning for the function call here.
<function=example_function_name>
<parameter=example_parameter_1>value_1</parameter>
<parameter=example_parameter_2>
This is the value for the second parameter
that can span
multiple lines
</parameter>
</function>

<IMPORTANT>
Reminder:
- Function calls MUST follow the specified format, start with <function= and end with </function>
- Required parameters MUST be specified
- Only call one function at a time
- Always provide reasoning for your function call in natural language BEFORE the function call (not after)
</IMPORTANT>
`;

/** `SimpleAgentArgs.instance_prompt` (its `\n\n` escapes are newlines in the Python source). */
export const SIMPLE_INSTANCE_PROMPT = `
I have uploaded a python code repository in the /testbed directory.

Now consider the following instructions:



{{ info.instructions }}



Can you help me solve the issue?
`;

/** What froggy_agent's default system prompt lists under "Shortcut features" (`FroggyAgent.shortcut_features`). */
export interface FroggyFeatures {
  pdb: boolean;
  showCurrentBreakpoints: boolean;
}

/**
 * `FroggyAgent._default_system_prompt`: a pretty-printed JSON object (2-space indent, as `json.dumps(...,
 * indent=2)`) with the instructions, the current breakpoints when asked, the evaluation output of the
 * current code (trimmed in the middle), and the shortcut features of pdb. Our pdb keeps breakpoints across
 * restarts and does not run `list .` after every command, so only the first feature is listed.
 */
export function froggySystemPrompt(info: EnvInfo, features: FroggyFeatures, maxEvalChars: number): string {
  const prompt: Record<string, unknown> = { Instructions: info.instructions };
  if (features.showCurrentBreakpoints) prompt['Current breakpoints'] = info.currentBreakpoints;
  const evalText = info.evalObservation?.observation;
  if (evalText) prompt['Evaluation output of current code'] = truncateMiddle(evalText, maxEvalChars);
  const shortcuts: string[] = [];
  if (features.pdb) {
    if (features.showCurrentBreakpoints) shortcuts.push('The environment will show the current breakpoints in the system prompt.');
    shortcuts.push('The environment will automatically restore existing breakpoints when a new PDB session is started (e.g., after an edit).');
  }
  if (shortcuts.length > 0) prompt['Shortcut features'] = shortcuts;
  return pythonPrettyJson(prompt);
}

/** `json.dumps(value, indent=2)`: non-ASCII escaped as Python's `ensure_ascii` does. */
export function pythonPrettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `describe_tools`: the tool list of simple_agent's system prompt. */
export function describeTools(tools: readonly ToolSchema[]): string {
  return tools
    .map((tool, index) => {
      const properties = Object.entries(tool.function.parameters.properties);
      const required = new Set(tool.function.parameters.required ?? []);
      const parameters =
        properties.length === 0
          ? 'No parameters are required for this function.'
          : properties
              .map(([name, property], position) => {
                const types = [property.type].flat();
                // The original marks a parameter optional when its types include "null"; our schemas also say so with `required`.
                const optional = types.includes('null') || (tool.function.parameters.required !== undefined && !required.has(name));
                return `(${position + 1}) ${name} (${types.join(', ')}, ${optional ? 'optional' : 'required'}): ${property.description ?? ''}`;
              })
              .join('\n');
      return `---- BEGIN FUNCTION #${index + 1}: ${tool.function.name} ----\nDescription: ${tool.function.description}\n\nParameters:\n${parameters}\n---- END FUNCTION #${index + 1} ----`;
    })
    .join('\n\n');
}

/** simple_agent's system prompt for these tools (a custom one may hold `{tools_description}` too). */
export function simpleSystemPrompt(tools: readonly ToolSchema[], template = SIMPLE_SYSTEM_PROMPT): string {
  return template.split('{tools_description}').join(describeTools(tools));
}

/** `str(value)` of a Python value parsed from JSON: how SimpleAgent writes a past call's arguments back. */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return JSON.stringify(value);
}

/** `XML_TOOL_CALL_TEMPLATE`: a past call as simple_agent writes it after the thought in the history. */
export function xmlToolCall(name: string, args: Record<string, unknown> | string): string {
  const parameters = typeof args === 'string' ? args : Object.entries(args).map(([key, value]) => `<parameter=${key}>${pythonStr(value)}</parameter>`).join('\n');
  return `<function=${name}>\n${parameters}\n</function>`;
}

/**
 * The `{{ ... }}` placeholders of the original's prompt templates that name env facts
 * (`info.instructions`, `info.current_breakpoints`, `info.eval_observation.observation`, `info.score`,
 * `info.max_score`). Other Jinja syntax is not interpreted (there is no template engine here); the text
 * stays as written. Like Jinja's default, one trailing newline is dropped.
 */
export function renderTemplate(template: string, info: EnvInfo): string {
  const values: Record<string, string> = {
    'info.instructions': info.instructions,
    'info.current_breakpoints': info.currentBreakpoints,
    'info.eval_observation.observation': info.evalObservation?.observation ?? '',
    'info.score': String(info.score),
    'info.max_score': String(info.maxScore ?? ''),
  };
  let out = '';
  let at = 0;
  for (;;) {
    const open = template.indexOf('{{', at);
    const close = open < 0 ? -1 : template.indexOf('}}', open + 2);
    if (open < 0 || close < 0) break;
    const key = template.slice(open + 2, close).trim();
    out += template.slice(at, open) + (key in values ? values[key] : template.slice(open, close + 2));
    at = close + 2;
  }
  out += template.slice(at);
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}
