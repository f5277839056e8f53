import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestSource(): number {
  const dir = join(packageDir, 'src');
  return Math.max(statSync(join(packageDir, 'package.json')).mtimeMs, ...readdirSync(dir).map((name) => statSync(join(dir, name)).mtimeMs));
}

/**
 * Vitest global setup: build `dist/index.js` (what the loader imports) unless it is up to date.
 * The JavaScript only: the tests never read the declarations, and a declaration build needs those of
 * `@debug-gym/spec`, which a test run need not have (the monorepo's `pnpm test` builds its packages
 * without them). `npm run build` writes `dist/index.d.ts` too, as before publishing.
 */
export default function setup(): void {
  const built = join(packageDir, 'dist', 'index.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource()) return;
  const tsup = pathToFileURL(createRequire(join(packageDir, 'package.json')).resolve('tsup')).href;
  // tsup.config.ts as it is, declarations left out (tsup reads the config from the working directory).
  const script = `const { build } = await import(${JSON.stringify(tsup)}); await build({ dts: false, silent: true });`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageDir, stdio: 'inherit' });
}
