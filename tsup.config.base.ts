import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Options } from 'tsup';

/**
 * Shared build config: every package re-exports this (one place to switch bundlers later).
 * `DEBUG_GYM_BUILD_TYPES=0` leaves out the declaration files: `pnpm test` sets it, since tests run the
 * JavaScript and declarations were most of a cold build's time (about 97 of 98 s). Turbo keys the build
 * cache on it, so a later `pnpm build` still writes them.
 */
export function packageBuildConfig(options: { entry?: string[] } = {}): Options {
  const pkg = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string };
  return {
    entry: options.entry ?? ['src/index.ts'],
    format: ['esm'],
    dts: process.env.DEBUG_GYM_BUILD_TYPES !== '0',
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    define: { __PACKAGE_VERSION__: JSON.stringify(pkg.version) },
  };
}
