import { loadPlugin, PluginLoadError, type ToolSpec } from '@debug-gym/core';
import { PluginNotAllowedError } from '../errors.js';

/**
 * Which plugins a client may name in a reset. Default: only *names* of plugins installed on the
 * server (the server's own tools, and packages `@debug-gym/<kind>-<name>` / `debug-gym-<kind>-<name>`
 * the loader finds next to it, their manifest checked before any import). Paths, `file:` URLs and
 * package specifiers are the operator's to allow.
 */
export interface PluginPolicy {
  /** Specifiers clients may name besides installed names, exactly as written (`--allow-plugin`). */
  allow?: readonly string[];
  /** Any path or package specifier (`--allow-plugin-paths`): clients can then run code on the host. */
  allowPaths?: boolean;
}

/** A plugin's name, not a path, URL or package specifier: no `/`, `.`, `:`, `@` or `\`. */
const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Is `name` one a client may send (an installed plugin's name, or one the operator allowed)? */
export function pluginNameAllowed(name: string, policy: PluginPolicy = {}): boolean {
  return policy.allowPaths === true || PLUGIN_NAME.test(name) || (policy.allow ?? []).includes(name);
}

/** Throws PluginNotAllowedError unless a client may name `name`. */
export function checkPluginName(kind: 'tool' | 'benchmark', name: string, policy: PluginPolicy, available: readonly string[]): void {
  if (!pluginNameAllowed(name, policy)) throw new PluginNotAllowedError(kind, name, [...available, ...(policy.allow ?? [])]);
}

/**
 * A tool a client named, as a plugin object: the server's own (`known`, by name or alias), else an
 * installed package or an operator-allowed specifier through the plugin loader (from `from`).
 * RepoEnv only ever gets plugin objects from here, never a client's string.
 */
export async function clientTool(name: string, known: Readonly<Record<string, ToolSpec>>, policy: PluginPolicy, from: string | undefined): Promise<ToolSpec> {
  const own = Object.hasOwn(known, name) ? known[name] : undefined;
  if (own !== undefined) return own;
  checkPluginName('tool', name, policy, Object.keys(known));
  try {
    return await loadPlugin('tool', name, from === undefined ? {} : { from });
  } catch (error) {
    if (!PluginLoadError.isInstance(error) || !PLUGIN_NAME.test(name) || !error.message.includes('no package found')) throw error;
    throw new PluginLoadError(
      name,
      `no tool of that name is installed on this server. Its tools: ${Object.keys(known).join(', ') || '(none)'}. ` +
        `The operator can install \`@debug-gym/tool-${name}\` or \`debug-gym-tool-${name}\` where the server runs.`,
      { kind: 'tool' },
    );
  }
}
