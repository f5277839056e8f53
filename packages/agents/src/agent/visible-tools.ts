import { type ToolSchema } from '@debug-gym/spec';

const TOOLS_HEADING = '\n\n## Tools\n\n';

/** The tools of `all` that the model may see, given the names to hide. */
export function visibleTools(all: readonly ToolSchema[], hidden: ReadonlySet<string>): ToolSchema[] {
  return all.filter((tool) => !hidden.has(tool.function.name));
}

/**
 * The env's instructions without the usage notes of hidden tools. The env writes them as the task, then
 * `## Tools`, then one `### <tool name>` section per tool (a `###` heading that is not a tool's name
 * belongs to the section before it); text in any other shape is returned unchanged.
 */
export function filterInstructions(instructions: string, hidden: ReadonlySet<string>, toolNames: ReadonlySet<string> = hidden): string {
  if (hidden.size === 0) return instructions;
  const at = instructions.indexOf(TOOLS_HEADING);
  if (at < 0) return instructions;
  const task = instructions.slice(0, at);
  const sections = instructions.slice(at + TOOLS_HEADING.length).split(/\n\n(?=### )/);
  let owner: string | undefined;
  const kept = sections.filter((section) => {
    const name = /^### (\S+)/.exec(section)?.[1];
    if (name !== undefined && (toolNames.has(name) || hidden.has(name))) owner = name;
    return owner === undefined || !hidden.has(owner);
  });
  return kept.length > 0 ? `${task}${TOOLS_HEADING}${kept.join('\n\n')}` : task;
}
