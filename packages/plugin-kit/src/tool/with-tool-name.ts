import { PluginLoadError, type ToolPluginV1 } from '@debug-gym/spec';

/**
 * The same tool under one of its aliases, e.g. `withToolName(rewrite, 'edit')` for a config that lists
 * `edit`: the schema the model sees is named `edit`, and `rewrite` still resolves to it as an alias.
 */
export function withToolName<Options>(plugin: ToolPluginV1<Options>, name: string): ToolPluginV1<Options> {
  if (name === plugin.name) return plugin;
  const aliases = plugin.aliases ?? [];
  if (!aliases.includes(name)) {
    throw new PluginLoadError(name, `'${name}' is not a name of the ${plugin.name} tool (its aliases: ${aliases.length ? aliases.join(', ') : 'none'}).`);
  }
  return { ...plugin, name, aliases: [plugin.name, ...aliases.filter((alias) => alias !== name)] };
}
