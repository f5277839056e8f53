import type { PluginKind } from './plugin-meta.js';

const PREFIX: Record<PluginKind, string> = { tool: 'tool', benchmark: 'bench', synth: 'synth' };

/**
 * Candidate package names for a config entry, in lookup order (tools shown; benchmarks use `bench`, bug generators `synth`):
 * `pdb` → `@debug-gym/tool-pdb`, `debug-gym-tool-pdb`; `@acme/pdb` → `@acme/debug-gym-tool-pdb`, `@acme/pdb`;
 * a full package name (`@acme/debug-gym-tool-x`, `@acme/tool-x`, `debug-gym-tool-x`) is used as-is.
 */
export function pluginCandidates(specifier: string, kind: PluginKind = 'tool'): string[] {
  const prefix = PREFIX[kind];
  if (specifier.startsWith('@')) {
    const [scope, name = ''] = specifier.split('/');
    if (name.startsWith(`debug-gym-${prefix}-`) || name.startsWith(`${prefix}-`)) return [specifier];
    return [`${scope}/debug-gym-${prefix}-${name}`, specifier];
  }
  if (specifier.startsWith(`debug-gym-${prefix}-`)) return [specifier];
  return [`@debug-gym/${prefix}-${specifier}`, `debug-gym-${prefix}-${specifier}`];
}
