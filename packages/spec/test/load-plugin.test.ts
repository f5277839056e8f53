import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';
import { PluginLoadError, PluginManifestError, SpecVersionError, loadPlugin, loadPluginPackage, loadToolPlugin, pluginCandidates } from '../src/index.js';


function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const pluginSource = (name: string, meta = '', extra = '') => `
export default {
  specificationVersion: 'tool-plugin-v1',
  ${meta}
  ${extra}
  name: '${name}',
  description: 'A ${name} tool.',
  parameters: { type: 'object', properties: {} },
  create: () => ({ run: async () => '${name} ran' }),
};`;

const metaOf = (name: string, version = '1.2.3', specVersion = '1.0') => `meta: { name: '${name}', version: '${version}', specVersion: '${specVersion}' },`;

interface PackageOptions {
  manifest?: Record<string, unknown> | null;
  meta?: string;
  extra?: string;
}

function toolPackage(name: string, toolName: string, options: PackageOptions = {}): Record<string, string> {
  const manifest = options.manifest === undefined ? { kind: 'tool', name: toolName } : options.manifest;
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({
      name,
      version: '1.2.3',
      type: 'module',
      exports: { '.': './index.js', './package.json': './package.json' },
      ...(manifest ? { 'debug-gym': manifest } : {}),
    }),
    [`node_modules/${name}/index.js`]: pluginSource(toolName, options.meta ?? metaOf(name), options.extra),
  };
}

const benchmarkSource = (name: string, meta: string) => `
export default { specificationVersion: 'benchmark-v1', ${meta} name: '${name}', description: 'd', loadTasks: async () => ({ benchmark: '${name}', source: 'x', tasks: [], complete: true, warnings: [] }) };`;

function benchmarkPackage(name: string, benchmarkName: string, meta = metaOf(name)): Record<string, string> {
  return {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.2.3', type: 'module', main: 'index.js', 'debug-gym': { kind: 'benchmark', name: benchmarkName } }),
    [`node_modules/${name}/index.js`]: benchmarkSource(benchmarkName, meta),
  };
}

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'debug-gym-loader-'));
  write(root, {
    ...toolPackage('@debug-gym/tool-hello', 'hello'),
    ...toolPackage('debug-gym-tool-third', 'third'),
    ...toolPackage('@acme/debug-gym-tool-scoped', 'scoped'),
    ...toolPackage('debug-gym-tool-nomanifest', 'nomanifest', { manifest: null }),
    ...toolPackage('debug-gym-tool-renamed', 'renamed', { manifest: { kind: 'tool', name: 'other' } }),
    ...toolPackage('debug-gym-tool-aliased', 'aliased', { manifest: { kind: 'tool', name: 'aliased', aliases: ['al'] }, extra: "aliases: ['al']," }),
    ...toolPackage('debug-gym-tool-aliasdrift', 'aliasdrift', { manifest: { kind: 'tool', name: 'aliasdrift', aliases: ['ad'] } }),
    ...toolPackage('debug-gym-tool-nometa', 'nometa', { meta: '' }),
    ...toolPackage('debug-gym-tool-stale', 'stale', { meta: metaOf('debug-gym-tool-stale', '1.0.0') }),
    ...toolPackage('debug-gym-tool-future', 'future', { meta: metaOf('debug-gym-tool-future', '1.2.3', '1.99') }),
    ...toolPackage('debug-gym-tool-ancient', 'ancient', { meta: metaOf('debug-gym-tool-ancient', '1.2.3', '0.9') }),
    ...toolPackage('debug-gym-tool-isbench', 'isbench', { manifest: { kind: 'benchmark', name: 'isbench' } }),
    ...benchmarkPackage('@debug-gym/bench-demo', 'demo'),
    ...benchmarkPackage('debug-gym-bench-nometa', 'nometa', ''),
    'bundler/node_modules/@debug-gym/tool-hello/package.json': JSON.stringify({ name: '@debug-gym/tool-hello', version: '1.2.3', type: 'module', main: 'index.js', 'debug-gym': { kind: 'tool', name: 'hello' } }),
    'bundler/node_modules/@debug-gym/tool-hello/index.js': pluginSource('hello', metaOf('@debug-gym/tool-hello'), "description: 'The bundled hello.',").replace("description: 'A hello tool.',", ''),
    'bundler/cli.js': '',
    'node_modules/debug-gym-tool-badshape/package.json': JSON.stringify({ name: 'debug-gym-tool-badshape', version: '1.2.3', type: 'module', main: 'index.js', 'debug-gym': { kind: 'tool', name: 'badshape' } }),
    'node_modules/debug-gym-tool-badshape/index.js': 'export default { name: "badshape" };',
    'node_modules/debug-gym-tool-throws/package.json': JSON.stringify({ name: 'debug-gym-tool-throws', type: 'module', main: 'index.js', 'debug-gym': { kind: 'tool', name: 'throws' } }),
    'node_modules/debug-gym-tool-throws/index.js': 'throw new Error("broken on import");',
    'node_modules/debug-gym-tool-sealed/package.json': JSON.stringify({ name: 'debug-gym-tool-sealed', version: '1.2.3', type: 'module', exports: { '.': './index.js' }, 'debug-gym': { kind: 'tool', name: 'sealed' } }),
    'node_modules/debug-gym-tool-sealed/index.js': pluginSource('sealed', metaOf('debug-gym-tool-sealed')),
    'local/my-tool.mjs': pluginSource('local'),
    'local/future-tool.mjs': pluginSource('localfuture', metaOf('x', '1.0.0', '2.0')),
  });
});

describe('pluginCandidates', () => {
  it.each([
    ['pdb', ['@debug-gym/tool-pdb', 'debug-gym-tool-pdb']],
    ['@acme/pdb', ['@acme/debug-gym-tool-pdb', '@acme/pdb']],
    ['@acme/debug-gym-tool-pdb', ['@acme/debug-gym-tool-pdb']],
    ['debug-gym-tool-pdb', ['debug-gym-tool-pdb']],
  ])('%s → %j', (specifier, expected) => {
    expect(pluginCandidates(specifier)).toEqual(expected);
  });
});

describe('loadToolPlugin', () => {
  it('resolves a bare name to @debug-gym/tool-<name> first', async () => {
    expect((await loadToolPlugin('hello', { from: root })).name).toBe('hello');
  });

  it('falls back to debug-gym-tool-<name> and to @scope/debug-gym-tool-<name>', async () => {
    expect((await loadToolPlugin('third', { from: root })).name).toBe('third');
    expect((await loadToolPlugin('@acme/scoped', { from: root })).name).toBe('scoped');
  });

  it('finds a package whose exports do not list ./package.json', async () => {
    expect((await loadToolPlugin('sealed', { from: root })).name).toBe('sealed');
  });

  it('loads a local file path relative to `from`', async () => {
    expect((await loadToolPlugin('./local/my-tool.mjs', { from: root })).name).toBe('local');
  });

  it('refuses a package without the debug-gym manifest field, naming the field', async () => {
    await expect(loadToolPlugin('nomanifest', { from: root })).rejects.toThrow(/no "debug-gym": \{ "kind": "tool"/);
  });

  it('refuses a module whose default export is not a tool plugin', async () => {
    await expect(loadToolPlugin('badshape', { from: root })).rejects.toThrow(/unsupported specificationVersion/);
  });

  it('wraps an import failure with the module name and the cause', async () => {
    const error = await loadToolPlugin('throws', { from: root }).catch((caught: unknown) => caught);
    expect(PluginLoadError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('broken on import');
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('lists every package name it tried when nothing is found', async () => {
    await expect(loadToolPlugin('missing', { from: root })).rejects.toThrow(
      "no package found (tried '@debug-gym/tool-missing', 'debug-gym-tool-missing'",
    );
  });
});

describe('loadPlugin: the manifest is checked against the code', () => {
  it('refuses a package whose manifest names another tool', async () => {
    const error = await loadToolPlugin('renamed', { from: root }).catch((caught: unknown) => caught);
    expect(PluginManifestError.isInstance(error)).toBe(true);
    expect((error as PluginManifestError).code).toBe('DG_PLUGIN_MANIFEST_MISMATCH');
    expect((error as Error).message).toContain(`the manifest ("debug-gym".name) says 'other', the code's tool is named 'renamed'`);
  });

  it('accepts aliases that match the manifest and refuses ones that differ', async () => {
    const loaded = await loadPluginPackage('tool', 'aliased', { from: root });
    expect(loaded.plugin.aliases).toEqual(['al']);
    expect(loaded.manifest?.aliases).toEqual(['al']);
    expect(loaded.packageName).toBe('debug-gym-tool-aliased');
    await expect(loadToolPlugin('aliasdrift', { from: root })).rejects.toThrow("the manifest's aliases [ad] differ from the code's []");
  });

  it('refuses a package plugin without meta, saying what to add', async () => {
    await expect(loadToolPlugin('nometa', { from: root })).rejects.toThrow("the plugin declares no meta. Add meta: { name: 'debug-gym-tool-nometa'");
  });

  it('refuses a stale build whose meta.version is not the package version', async () => {
    await expect(loadToolPlugin('stale', { from: root })).rejects.toThrow("meta.version is '1.0.0', but package.json says '1.2.3': the build is stale, rebuild the package.");
  });

  it('refuses a plugin written against a newer or an older spec with a typed, actionable error', async () => {
    const newer = await loadToolPlugin('future', { from: root }).catch((caught: unknown) => caught);
    expect(SpecVersionError.isInstance(newer)).toBe(true);
    expect((newer as SpecVersionError).code).toBe('DG_PLUGIN_SPEC_INCOMPATIBLE');
    expect((newer as SpecVersionError).pluginSpecVersion).toBe('1.99');
    expect((newer as Error).message).toContain('upgrade debug-gym');
    await expect(loadToolPlugin('ancient', { from: root })).rejects.toThrow('pnpm add debug-gym-tool-ancient@latest');
    await expect(loadToolPlugin('./local/future-tool.mjs', { from: root })).rejects.toThrow(SpecVersionError);
  });

  it('refuses a package of the other kind', async () => {
    await expect(loadToolPlugin('isbench', { from: root })).rejects.toThrow("package 'debug-gym-tool-isbench' is a benchmark plugin, not a tool");
    await expect(loadPlugin('benchmark', 'hello', { from: root })).rejects.toThrow("Could not load benchmark plugin 'hello': no package found (tried '@debug-gym/bench-hello', 'debug-gym-bench-hello'");
  });
});

describe('loadPlugin: benchmarks', () => {
  it('resolves a bare benchmark name to @debug-gym/bench-<name> and checks its meta', async () => {
    expect((await loadPlugin('benchmark', 'demo', { from: root })).name).toBe('demo');
    await expect(loadPlugin('benchmark', 'nometa', { from: root })).rejects.toThrow('the plugin declares no meta');
  });
});

describe('loadPlugin: parents', () => {
  it("searches a parent module's dependencies before `from` (how the CLI loads its bundled plugins)", async () => {
    const parent = new URL(`file://${join(root, 'bundler/cli.js')}`);
    expect((await loadToolPlugin('hello', { from: root, parents: [parent] })).description).toBe('The bundled hello.');
    expect((await loadToolPlugin('hello', { from: root })).description).toBe('A hello tool.');
    expect((await loadToolPlugin('third', { from: root, parents: [parent] })).name).toBe('third');
  });
});

describe('loadPlugin: a package folder given by path', () => {
  it('is checked against its manifest like a package loaded by name', async () => {
    expect((await loadPlugin('tool', './node_modules/@debug-gym/tool-hello', { from: root })).name).toBe('hello');
    await expect(loadPlugin('tool', './node_modules/debug-gym-tool-renamed', { from: root })).rejects.toThrow(/the manifest \("debug-gym"\.name\) says 'other'/);
    await expect(loadPlugin('tool', './node_modules/debug-gym-tool-stale', { from: root })).rejects.toThrow(/the build is stale/);
    await expect(loadPlugin('tool', './node_modules/debug-gym-tool-isbench', { from: root })).rejects.toThrow(/is a benchmark plugin, not a tool/);
  });

  it('without a manifest is loaded like a file (meta checked when present)', async () => {
    expect((await loadPlugin('tool', './node_modules/debug-gym-tool-nomanifest', { from: root })).name).toBe('nomanifest');
  });
});
