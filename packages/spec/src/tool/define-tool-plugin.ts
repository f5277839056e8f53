import { PluginLoadError } from '../errors/index.js';
import type { ToolPluginV1 } from './tool-plugin-v1.js';

/** Identity function that checks the plugin's shape at definition time and gives type inference. */
export function defineToolPlugin<Options = Record<string, unknown>>(plugin: ToolPluginV1<Options>): ToolPluginV1<Options> {
  assertToolPlugin(plugin, plugin?.name ?? '<unnamed>');
  return plugin;
}

export function isToolPlugin(value: unknown): value is ToolPluginV1<unknown> {
  return describeToolPluginProblem(value) === null;
}

export function assertToolPlugin(value: unknown, specifier: string): asserts value is ToolPluginV1<unknown> {
  const problem = describeToolPluginProblem(value);
  if (problem) throw new PluginLoadError(specifier, problem);
}

/** Why `value` is not a tool plugin, or null when it is one. */
export function describeToolPluginProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'the module must default-export a tool plugin object (use defineToolPlugin).';
  const plugin = value as Partial<ToolPluginV1<unknown>>;
  if (plugin.specificationVersion !== 'tool-plugin-v1') {
    return `unsupported specificationVersion ${JSON.stringify(plugin.specificationVersion)}; this core understands 'tool-plugin-v1'.`;
  }
  if (typeof plugin.name !== 'string' || !/^[a-zA-Z_][\w-]*$/.test(plugin.name)) return 'plugin.name must be an identifier like "pdb".';
  if (typeof plugin.description !== 'string' || plugin.description.length === 0) return 'plugin.description must be a non-empty string.';
  if (plugin.parameters?.type !== 'object' || typeof plugin.parameters.properties !== 'object') {
    return 'plugin.parameters must be a JSON Schema object ({ type: "object", properties: {...} }).';
  }
  if (typeof plugin.create !== 'function') return 'plugin.create must be a function returning the tool.';
  if (plugin.aliases !== undefined && (!Array.isArray(plugin.aliases) || plugin.aliases.some((alias) => typeof alias !== 'string'))) return 'plugin.aliases must be an array of names.';
  if (plugin.meta !== undefined && (typeof plugin.meta !== 'object' || plugin.meta === null)) return 'plugin.meta must be { name, version, specVersion }.';
  return null;
}
