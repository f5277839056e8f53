import { SPEC_VERSION } from './plugin-meta.js';

/** Why `pluginSpecVersion` cannot run on a host implementing `hostSpecVersion`, or null when it can. */
export function specVersionProblem(pluginSpecVersion: unknown, packageName: string, hostSpecVersion: string = SPEC_VERSION): string | null {
  const plugin = parse(pluginSpecVersion);
  const host = parse(hostSpecVersion);
  if (!host) throw new TypeError(`Invalid host spec version '${hostSpecVersion}'.`);
  if (!plugin) return `meta.specVersion must be a 'major.minor' string like '${SPEC_VERSION}', got ${JSON.stringify(pluginSpecVersion)}.`;
  if (plugin.major < host.major) {
    return `The plugin is older than this debug-gym's plugin contract: upgrade it (\`pnpm add ${packageName}@latest\`), or use a debug-gym release built on @debug-gym/spec ${plugin.major}.x.`;
  }
  if (plugin.major > host.major || plugin.minor > host.minor) {
    return `The plugin needs a newer plugin contract: upgrade debug-gym (@debug-gym/cli or @debug-gym/core) to a release built on @debug-gym/spec ${plugin.major}.${plugin.minor} or later, or install an older ${packageName}.`;
  }
  return null;
}

function parse(version: unknown): { major: number; minor: number } | null {
  if (typeof version !== 'string') return null;
  const match = /^(\d+)\.(\d+)$/.exec(version);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : null;
}
