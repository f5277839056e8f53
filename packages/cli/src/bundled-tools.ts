import { loadPluginPackage, withToolName, type ToolPluginV1, type ToolSpec } from '@debug-gym/core';

/** The tool packages the CLI ships with (its own dependencies), in the order their tools are listed. */
export const BUNDLED_TOOL_PACKAGES: readonly string[] = [
  '@debug-gym/tool-listdir',
  '@debug-gym/tool-view',
  '@debug-gym/tool-eval',
  '@debug-gym/tool-pdb',
  '@debug-gym/tool-rewrite',
  '@debug-gym/tool-grep',
  '@debug-gym/tool-bash',
  '@debug-gym/tool-submit',
];

/**
 * The bundled tools, loaded through the same loader as any other plugin (manifest and spec version
 * checked), resolved from the CLI's own dependencies, by name and by each alias their manifest
 * declares (`edit` for `rewrite`: the same tool shown to the model under that name).
 */
export async function loadBundledTools(): Promise<Readonly<Record<string, ToolPluginV1<unknown>>>> {
  const tools: Record<string, ToolPluginV1<unknown>> = {};
  for (const packageName of BUNDLED_TOOL_PACKAGES) {
    const { plugin, manifest } = await loadPluginPackage('tool', packageName, { parents: [import.meta.url] });
    tools[plugin.name] = plugin;
    for (const alias of manifest?.aliases ?? []) tools[alias] = withToolName(plugin, alias);
  }
  return tools;
}

/**
 * The tools the CLI ships with, by name and alias. They are passed to RepoEnv as plugin objects, so
 * they load wherever the config file lives; any other name or path is resolved from the config's folder.
 */
export const BUNDLED_TOOLS: Readonly<Record<string, ToolPluginV1<unknown>>> = await loadBundledTools();

/** A config's tool entry (`pdb`, `{ eval: { run_on_rewrite: true } }`, `./my-tool.js`) as RepoEnv's ToolSpec. */
export function toToolSpec(entry: string | Record<string, Record<string, unknown> | null>): ToolSpec {
  if (typeof entry === 'string') return BUNDLED_TOOLS[entry] ?? entry;
  const [name, options] = Object.entries(entry)[0] ?? ['', null];
  const target = BUNDLED_TOOLS[name] ?? name;
  return options ? ([target, options] as ToolSpec) : target;
}

/** The tool's name in a config entry. */
export function toolEntryName(entry: string | Record<string, unknown>): string {
  return typeof entry === 'string' ? entry : (Object.keys(entry)[0] ?? '');
}
