import { defineConfig } from 'tsup';

// ESM only, with type declarations: what the debug-gym loader imports (`exports["."].default`).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
