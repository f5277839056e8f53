import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry, defineToolPlugin } from '../src/index.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'debug-gym-registry-'));
  const files: Record<string, string> = {
    'node_modules/@debug-gym/tool-hello/package.json': JSON.stringify({ name: '@debug-gym/tool-hello', version: '1.0.0', type: 'module', main: 'index.js', 'debug-gym': { kind: 'tool', name: 'hello' } }),
    'node_modules/@debug-gym/tool-hello/index.js': `export default { specificationVersion: 'tool-plugin-v1', meta: { name: '@debug-gym/tool-hello', version: '1.0.0', specVersion: '1.0' }, name: 'hello', description: 'A hello tool.', parameters: { type: 'object', properties: {} }, create: () => ({ run: async () => 'hello ran' }) };`,
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
});

describe('ToolRegistry', () => {
  const plugin = defineToolPlugin({
    specificationVersion: 'tool-plugin-v1',
    name: 'rewrite',
    aliases: ['edit'],
    description: 'Rewrite lines.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    create: () => ({ run: async () => 'ok' }),
  });

  it('registers names and aliases, exposes schemas and instructions', async () => {
    const registry = await ToolRegistry.load([plugin, 'hello'], root);
    expect(registry.names()).toEqual(['rewrite', 'hello']);
    expect(registry.get('edit')?.plugin.name).toBe('rewrite');
    expect(registry.has('hello')).toBe(true);
    expect(registry.schemas()[0]).toEqual({ type: 'function', function: { name: 'rewrite', description: 'Rewrite lines.', parameters: plugin.parameters } });
    expect(registry.instructions()).toContain('### hello\nA hello tool.');
  });

  it('refuses duplicate names, including aliases', async () => {
    await expect(ToolRegistry.load([plugin, plugin])).rejects.toThrow("Tool 'rewrite' already exists!");
  });

  it('reports a create() failure as a plugin load error', async () => {
    const broken = { ...plugin, name: 'broken', aliases: [], create: () => { throw new Error('bad options'); } };
    await expect(ToolRegistry.load([[broken, { x: 1 }]])).rejects.toThrow("Could not load tool plugin 'broken': create() failed: bad options");
  });

  it('checks plugin shapes at definition time', () => {
    expect(() => defineToolPlugin({ ...plugin, name: 'bad name' })).toThrow('plugin.name must be an identifier');
    expect(() => defineToolPlugin({ ...plugin, description: '' })).toThrow('plugin.description must be a non-empty string');
    expect(() => defineToolPlugin({ ...plugin, parameters: {} as never })).toThrow('plugin.parameters must be a JSON Schema object');
    expect(() => defineToolPlugin({ ...plugin, create: undefined as never })).toThrow('plugin.create must be a function');
  });
});

