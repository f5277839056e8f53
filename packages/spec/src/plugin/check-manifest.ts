import type { SynthGeneratorV1 } from '../synth/synth-generator-v1.js';
import type { BenchmarkV1 } from '../benchmark/benchmark-v1.js';
import { PluginManifestError, SpecVersionError } from '../errors/index.js';
import type { ToolPluginV1 } from '../tool/tool-plugin-v1.js';
import { SPEC_VERSION, type PluginKind, type PluginManifest, type PluginMeta } from './plugin-meta.js';
import { specVersionProblem } from './spec-version.js';

/** The plugin's `meta` is well formed and its spec version runs here. */
export function checkMeta(kind: PluginKind, specifier: string, meta: PluginMeta): void {
  if (typeof meta.name !== 'string' || typeof meta.version !== 'string') {
    throw new PluginManifestError(specifier, 'meta must be { name, version, specVersion } with the package name and version as strings.', { kind });
  }
  const problem = specVersionProblem(meta.specVersion, meta.name);
  if (problem) throw new SpecVersionError(specifier, String(meta.specVersion), SPEC_VERSION, problem, { kind });
}

/** The code of a plugin package agrees with its `"debug-gym"` manifest and its package.json. */
export function checkAgainstManifest(
  kind: PluginKind,
  specifier: string,
  plugin: ToolPluginV1<unknown> | BenchmarkV1 | SynthGeneratorV1,
  manifest: PluginManifest,
  packageJson: { name: string; version: string },
): void {
  const fail = (message: string): never => {
    throw new PluginManifestError(specifier, `package '${packageJson.name}': ${message}`, { kind });
  };
  if (!plugin.meta) {
    fail(`the plugin declares no meta. Add meta: { name: '${packageJson.name}', version: <package version>, specVersion: '${SPEC_VERSION}' } (see @debug-gym/spec's README).`);
    return;
  }
  checkMeta(kind, specifier, plugin.meta);
  if (plugin.meta.name !== packageJson.name) fail(`meta.name is '${plugin.meta.name}', but the package is '${packageJson.name}'.`);
  if (plugin.meta.version !== packageJson.version) {
    fail(`meta.version is '${plugin.meta.version}', but package.json says '${packageJson.version}': the build is stale, rebuild the package.`);
  }
  if (plugin.name !== manifest.name) fail(`the manifest ("debug-gym".name) says '${manifest.name}', the code's ${kind} is named '${plugin.name}'. Make them equal.`);
  const codeAliases = [...(('aliases' in plugin ? plugin.aliases : undefined) ?? [])].sort();
  const manifestAliases = [...(manifest.aliases ?? [])].sort();
  if (codeAliases.join('\0') !== manifestAliases.join('\0')) {
    fail(`the manifest's aliases [${manifestAliases.join(', ')}] differ from the code's [${codeAliases.join(', ')}]. Make them equal.`);
  }
}
