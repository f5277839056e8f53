import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isBenchmark } from '../benchmark/define-benchmark.js';
import type { BenchmarkV1 } from '../benchmark/benchmark-v1.js';
import { PluginLoadError } from '../errors/index.js';
import { describeToolPluginProblem } from '../tool/define-tool-plugin.js';
import type { ToolPluginV1 } from '../tool/tool-plugin-v1.js';
import { describeSynthGeneratorProblem } from '../synth/define-synth-generator.js';
import type { SynthGeneratorV1 } from '../synth/synth-generator-v1.js';
import { checkAgainstManifest, checkMeta } from './check-manifest.js';
import { pluginCandidates } from './plugin-candidates.js';
import type { PluginKind, PluginManifest } from './plugin-meta.js';

export interface LoadPluginOptions {
  /** Folder relative paths and package names resolve from (the config file's folder). Default: cwd. */
  from?: string;
  /**
   * Modules (a file URL such as `import.meta.url`, or a path) whose own dependencies are searched
   * for packages before `from`: the CLI passes its own, so the plugins it bundles load wherever
   * the config file lives (the parent of `import.meta`'s `resolve`, for several parents).
   */
  parents?: readonly (string | URL)[];
}

/** What each kind of plugin is. */
export interface PluginByKind {
  tool: ToolPluginV1<unknown>;
  benchmark: BenchmarkV1;
  synth: SynthGeneratorV1;
}

/** A loaded plugin with what the loader learned on the way. */
export interface LoadedPlugin<K extends PluginKind> {
  plugin: PluginByKind[K];
  /** The package's `"debug-gym"` manifest (null for a local file). */
  manifest: PluginManifest | null;
  /** The package name (null for a local file). */
  packageName: string | null;
  /** The imported file. */
  entry: string;
}

/**
 * Resolve a config entry (`pdb`, `aider`, `@acme/pdb`, a package name, or a local path) to a
 * plugin of `kind`. For a package, its `"debug-gym"` manifest is read before anything is imported
 * (a package that is not a plugin of this kind is refused), then the code is checked against it:
 * kind, name and aliases must match the manifest, `meta.name`/`meta.version` the package.json, and
 * `meta.specVersion` must be compatible with this spec (`SpecVersionError` otherwise).
 */
export async function loadPlugin<K extends PluginKind>(kind: K, specifier: string, options: LoadPluginOptions = {}): Promise<PluginByKind[K]> {
  return (await loadPluginPackage(kind, specifier, options)).plugin;
}

/** `loadPlugin` that also returns the manifest and package name (the CLI reads aliases from it). */
export async function loadPluginPackage<K extends PluginKind>(kind: K, specifier: string, options: LoadPluginOptions = {}): Promise<LoadedPlugin<K>> {
  const from = resolve(options.from ?? process.cwd());
  if (isPathSpecifier(specifier)) {
    const entry = await resolveLocalPath(specifier, from);
    const local = await localPackage(specifier, from);
    if (local && local.manifest.kind !== kind) {
      throw new PluginLoadError(specifier, `the package at ${specifier} is a ${local.manifest.kind} plugin, not a ${kind} (its "debug-gym" manifest says so).`, { kind });
    }
    const plugin = await importPlugin(kind, specifier, entry);
    // A package folder with a manifest gets the same checks as one loaded by name; a bare file only its meta's.
    if (local) checkAgainstManifest(kind, specifier, plugin, local.manifest, local.packageJson);
    else if (plugin.meta) checkMeta(kind, specifier, plugin.meta);
    return { plugin, manifest: local?.manifest ?? null, packageName: local?.packageJson.name ?? null, entry };
  }
  const requires = [...(options.parents ?? []).map(parentRequire), createRequire(join(from, 'noop.js'))];
  const candidates = pluginCandidates(specifier, kind);
  for (const candidate of candidates) {
    for (const require of requires) {
      const packageJsonPath = findPackageJson(require, candidate);
      if (packageJsonPath === null) continue;
      const packageJson = JSON.parse(await readFile(packageJsonPath, 'utf8')) as { name?: string; version?: string; 'debug-gym'?: PluginManifest };
      const manifest = packageJson['debug-gym'];
      if (manifest?.kind !== kind) {
        const actual = manifest?.kind ? `a ${manifest.kind} plugin, not a ${kind}` : `not a debug-gym ${kind} plugin`;
        throw new PluginLoadError(specifier, `package '${candidate}' is ${actual}: its package.json has no "debug-gym": { "kind": "${kind}", "name": ... } field.`, { kind });
      }
      let entry: string;
      try {
        entry = require.resolve(candidate);
      } catch (cause) {
        throw new PluginLoadError(specifier, `package '${candidate}' was found but its entry point could not be resolved (is it built?).`, { cause, kind });
      }
      const plugin = await importPlugin(kind, specifier, entry);
      checkAgainstManifest(kind, specifier, plugin, manifest, { name: packageJson.name ?? candidate, version: packageJson.version ?? '' });
      return { plugin, manifest, packageName: packageJson.name ?? candidate, entry };
    }
  }
  const where = [...(options.parents ?? []).map(String), from].join(', ');
  throw new PluginLoadError(
    specifier,
    `no package found (tried ${candidates.map((name) => `'${name}'`).join(', ')} from ${where}). Install it, e.g. \`pnpm add ${candidates[0]}\`, or give a path to a local plugin.`,
    { kind },
  );
}

/** The options of the earlier tool-only loader (same as `LoadPluginOptions`). */
export type LoadToolPluginOptions = LoadPluginOptions;

/** The `"debug-gym"` field of a tool package. */
export type ToolPackageManifest = PluginManifest & { kind: 'tool' };

/** `loadPlugin('tool', ...)`, kept for callers of the earlier tool-only loader. */
export function loadToolPlugin(specifier: string, options: LoadPluginOptions = {}): Promise<ToolPluginV1<unknown>> {
  return loadPlugin('tool', specifier, options);
}

function isPathSpecifier(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier) || specifier.startsWith('file:');
}

function parentRequire(parent: string | URL): NodeJS.Require {
  const path = parent instanceof URL || parent.startsWith('file:') ? fileURLToPath(parent) : parent;
  return createRequire(path);
}

/**
 * The package.json of an installed package, found along Node's lookup path. Not
 * `require.resolve('<name>/package.json')`: that fails for packages whose `exports` do not list
 * `./package.json`, which would be misreported as "not installed".
 */
function findPackageJson(require: NodeJS.Require, name: string): string | null {
  for (const dir of require.resolve.paths(name) ?? []) {
    const path = join(dir, name, 'package.json');
    if (existsSync(path)) return path;
  }
  return null;
}

/** The package.json of a path that names a package folder with a `"debug-gym"` manifest, else null. */
async function localPackage(specifier: string, from: string): Promise<{ manifest: PluginManifest; packageJson: { name: string; version: string } } | null> {
  const path = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(from, specifier);
  const file = join(path, 'package.json');
  if (!existsSync(file)) return null;
  const packageJson = JSON.parse(await readFile(file, 'utf8')) as { name?: string; version?: string; 'debug-gym'?: PluginManifest };
  const manifest = packageJson['debug-gym'];
  if (!manifest) return null;
  return { manifest, packageJson: { name: packageJson.name ?? specifier, version: packageJson.version ?? '' } };
}

async function resolveLocalPath(specifier: string, from: string): Promise<string> {
  const path = specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(from, specifier);
  try {
    // A package folder resolves through its package.json; a file path resolves to itself.
    return createRequire(join(dirname(path), 'noop.js')).resolve(path);
  } catch {
    return path;
  }
}

async function importPlugin<K extends PluginKind>(kind: K, specifier: string, entry: string): Promise<PluginByKind[K]> {
  let module: { default?: unknown } & Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  } catch (cause) {
    throw new PluginLoadError(specifier, `importing ${entry} failed: ${(cause as Error).message}`, { cause, kind });
  }
  if (kind === 'benchmark') {
    const benchmark = module.default ?? Object.values(module).find(isBenchmark);
    if (!isBenchmark(benchmark)) {
      throw new PluginLoadError(specifier, `${entry} does not export a benchmark (an object with specificationVersion: 'benchmark-v1', name and loadTasks(); use defineBenchmark).`, { kind });
    }
    return benchmark as PluginByKind[K];
  }
  if (kind === 'synth') {
    const problem = describeSynthGeneratorProblem(module.default);
    if (problem) throw new PluginLoadError(specifier, `${entry}: ${problem}`, { kind });
    return module.default as PluginByKind[K];
  }
  const problem = describeToolPluginProblem(module.default);
  if (problem) throw new PluginLoadError(specifier, problem, { kind });
  return module.default as PluginByKind[K];
}
