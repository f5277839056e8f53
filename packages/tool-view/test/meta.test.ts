import { readFileSync } from 'node:fs';
import { SPEC_VERSION, specVersionProblem } from '@debug-gym/spec';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
  'debug-gym': { kind: string; name: string; aliases?: string[] };
};

describe('plugin meta', () => {
  it('names this package and its version, and a spec version this spec accepts', () => {
    expect(plugin.meta).toEqual({ name: packageJson.name, version: packageJson.version, specVersion: expect.any(String) });
    expect(specVersionProblem(plugin.meta?.specVersion, packageJson.name, SPEC_VERSION)).toBeNull();
  });

  it('matches the package.json "debug-gym" manifest', () => {
    expect(plugin.name).toBe(packageJson['debug-gym'].name);
    expect([...((plugin as { aliases?: readonly string[] }).aliases ?? [])]).toEqual(packageJson['debug-gym'].aliases ?? []);
  });
});
