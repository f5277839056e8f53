import { defineConfig } from 'vitest/config';

// The loader tests import the package the way a user's config would: through package.json and
// `dist/`. The global setup builds it first when `dist/` is missing or older than `src/`.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['./test/build-package.ts'],
    // test-results.json: the monorepo's `pnpm test` adds up every package's report.
    reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
    coverage: { provider: 'v8', include: ['src/**/*.ts'], exclude: ['src/index.ts'], thresholds: { lines: 85, functions: 85, branches: 80, statements: 85 } },
  },
});
