import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginManifestError, SPEC_VERSION, SpecVersionError, checkPluginPackage, defineToolPlugin } from '../src/index.js';

function packageJson(fields: Record<string, unknown>): string {
  const file = join(mkdtempSync(join(tmpdir(), 'dg-check-package-')), 'package.json');
  writeFileSync(file, JSON.stringify({ name: 'debug-gym-tool-demo', version: '1.2.3', 'debug-gym': { kind: 'tool', name: 'demo' }, ...fields }));
  return file;
}

function tool(meta: Record<string, unknown> | undefined, name = 'demo') {
  return defineToolPlugin({
    specificationVersion: 'tool-plugin-v1',
    name,
    description: 'A demo.',
    parameters: { type: 'object', properties: {} },
    ...(meta ? { meta: meta as never } : {}),
    create: () => ({ run: async () => 'ok' }),
  });
}

const meta = { name: 'debug-gym-tool-demo', version: '1.2.3', specVersion: SPEC_VERSION };

describe('checkPluginPackage', () => {
  it('accepts a plugin that agrees with its package.json', () => {
    expect(() => checkPluginPackage(tool(meta), packageJson({}))).not.toThrow();
  });

  it.each([
    ['no manifest field', tool(meta), { 'debug-gym': undefined }, /no "debug-gym"/],
    ['no meta', tool(undefined), {}, /declares no meta/],
    ['a stale version', tool(meta), { version: '1.2.4' }, /the build is stale/],
    ['another name in the manifest', tool(meta, 'other'), {}, /says 'demo', the code's tool is named 'other'/],
  ])('refuses %s with a PluginManifestError', (_case, plugin, fields, message) => {
    const error = (() => { try { checkPluginPackage(plugin, packageJson(fields)); } catch (caught) { return caught; } })();
    expect(PluginManifestError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses a spec version this spec cannot run with a SpecVersionError', () => {
    const error = (() => { try { checkPluginPackage(tool({ ...meta, specVersion: '99.0' }), packageJson({})); } catch (caught) { return caught; } })();
    expect(SpecVersionError.isInstance(error)).toBe(true);
  });
});
