import type { SynthGeneratorV1 } from '../synth/synth-generator-v1.js';
import { readFileSync } from 'node:fs';
import type { BenchmarkV1 } from '../benchmark/benchmark-v1.js';
import { PluginManifestError } from '../errors/index.js';
import type { ToolPluginV1 } from '../tool/tool-plugin-v1.js';
import { checkAgainstManifest } from './check-manifest.js';
import type { PluginManifest } from './plugin-meta.js';

/**
 * For a plugin package's own tests: the checks the loader makes when it loads the package by name
 * (`meta` names this package and version with a spec version this spec accepts; the code's name and
 * aliases are the `"debug-gym"` manifest's). Throws the loader's `PluginManifestError` /
 * `SpecVersionError`, so a mismatch fails the package's tests before it fails a user's load.
 */
export function checkPluginPackage(plugin: ToolPluginV1<unknown> | BenchmarkV1 | SynthGeneratorV1, packageJsonUrl: URL | string): void {
  const packageJson = JSON.parse(readFileSync(packageJsonUrl, 'utf8')) as { name: string; version: string; 'debug-gym'?: PluginManifest };
  const manifest = packageJson['debug-gym'];
  if (!manifest) throw new PluginManifestError(packageJson.name, 'package.json has no "debug-gym": { "kind", "name" } manifest field.');
  checkAgainstManifest(manifest.kind, packageJson.name, plugin, manifest, packageJson);
}
