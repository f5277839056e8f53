import { defineConfig } from 'tsup';

// Commands, not a library: one ESM entry each, no type declarations.
export default defineConfig({
  entry: ['src/perf.ts', 'src/validate.ts', 'src/viewer-perf.ts', 'src/validate-fork-server.ts', 'src/text-linearity.ts'],
  format: ['esm'],
  dts: false,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
