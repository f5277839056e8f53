import { checkPluginPackage } from '@debug-gym/spec';
import { expect, it } from 'vitest';
import plugin from '../src/index.js';

it('agrees with its package.json as the loader checks it: meta (name, version, spec version) and the "debug-gym" manifest', () => {
  expect(() => checkPluginPackage(plugin, new URL('../package.json', import.meta.url))).not.toThrow();
});
