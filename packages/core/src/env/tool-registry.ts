import { DuplicateToolError, PluginLoadError, assertToolPlugin, loadPlugin, type JsonSchemaObject, type ToolInstance, type ToolPluginV1, type ToolSchema } from '@debug-gym/spec';

/** How tools are named in options and configs: a name/package/path, a plugin object, or either with options. */
export type ToolSpec =
  | string
  | ToolPluginV1<never>
  | ToolPluginV1<unknown>
  | readonly [string, Record<string, unknown>]
  | readonly [ToolPluginV1<never> | ToolPluginV1<unknown>, Record<string, unknown>];

export interface RegisteredTool {
  plugin: ToolPluginV1<unknown>;
  instance: ToolInstance;
  /** What `create` was given. */
  options?: Record<string, unknown>;
}

/** The argument schema the model is shown for a registered tool: its instance's when its options narrowed it, else the plugin's. */
export function parametersOf(tool: RegisteredTool): JsonSchemaObject {
  return tool.instance.parameters ?? tool.plugin.parameters;
}

/** Which registered tools to leave out of names, schemas and instructions. */
export type ToolFilter = (tool: RegisteredTool) => boolean;

const everyTool: ToolFilter = () => true;

/** The tools of one env, in registration order; aliases resolve to their tool. */
export class ToolRegistry {
  private readonly tools: RegisteredTool[] = [];
  private readonly byName = new Map<string, RegisteredTool>();

  static async load(specs: readonly ToolSpec[], from?: string): Promise<ToolRegistry> {
    const registry = new ToolRegistry();
    for (const spec of specs) {
      const [target, options] = Array.isArray(spec) ? (spec as readonly [unknown, Record<string, unknown>]) : [spec, undefined];
      const plugin = typeof target === 'string' ? await loadPlugin('tool', target, from === undefined ? {} : { from }) : target;
      assertToolPlugin(plugin, typeof target === 'string' ? target : String((plugin as { name?: unknown })?.name));
      registry.add(plugin, options);
    }
    return registry;
  }

  add(plugin: ToolPluginV1<unknown>, options?: Record<string, unknown>): void {
    const names = [plugin.name, ...(plugin.aliases ?? [])];
    for (const name of names) if (this.byName.has(name)) throw new DuplicateToolError(name);
    let instance: ToolInstance;
    try {
      instance = plugin.create(options ?? {});
    } catch (cause) {
      throw new PluginLoadError(plugin.name, `create() failed: ${(cause as Error).message}`, { cause });
    }
    const entry = { plugin, instance, ...(options ? { options } : {}) };
    this.tools.push(entry);
    for (const name of names) this.byName.set(name, entry);
  }

  /** The same tools with fresh instances (for a forked env). */
  fresh(): ToolRegistry {
    const registry = new ToolRegistry();
    for (const { plugin, options } of this.tools) registry.add(plugin, options);
    return registry;
  }

  get(name: string): RegisteredTool | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get all(): readonly RegisteredTool[] {
    return this.tools;
  }

  names(include: ToolFilter = everyTool): string[] {
    return this.tools.filter(include).map((tool) => tool.plugin.name);
  }

  schemas(include: ToolFilter = everyTool): ToolSchema[] {
    return this.tools.filter(include).map((tool) => ({
      type: 'function',
      function: { name: tool.plugin.name, description: tool.instance.description ?? tool.plugin.description, parameters: parametersOf(tool) },
    }));
  }

  /** Every tool's usage notes, for the system prompt. */
  instructions(include: ToolFilter = everyTool): string {
    return this.tools
      .filter(include)
      .map(({ plugin, instance }) => `### ${plugin.name}\n${plugin.instructions ?? instance.description ?? plugin.description}`)
      .join('\n\n');
  }
}
