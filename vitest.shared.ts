import { defineConfig, type ViteUserConfig } from 'vitest/config';

/** Resolve sibling @debug-gym/* packages to their TypeScript sources, so tests never need a build. */
const conditions = ['@debug-gym/source', 'node', 'import', 'module', 'default'];

export interface SharedTestOptions {
  /** Per-test timeout; sandboxed and pdb tests start real processes. */
  testTimeout?: number;
  /** Coverage thresholds (percent) enforced by `test:coverage`. */
  coverageThreshold?: number;
  /** Run test files one after another (tests that start containers or many processes). */
  sequential?: boolean;
  /**
   * Vitest hands the SSR conditions to its workers as Node `--conditions`; with `import` among them a
   * CommonJS package that require()s a dual package gets its ESM build (@fastify/websocket's
   * require('ws') then lacks WebSocket.Server). True: only `@debug-gym/source` and `node` are
   * added (Vite and Node apply import / require / default themselves). For suites that load the server.
   */
  nodeConditionsOnly?: boolean;
  /**
   * Give every test file fresh modules (Vitest's default). Off by default: a worker then imports core,
   * the terminal and their sources once for all of its files instead of once per file, which was most of
   * the suite's collect time. A suite whose files share module state that one file changes opts back in.
   */
  isolate?: boolean;
}

export function sharedTestConfig(options: SharedTestOptions = {}): ViteUserConfig {
  const threshold = options.coverageThreshold;
  const ssrConditions = options.nodeConditionsOnly ? ['@debug-gym/source', 'node'] : conditions;
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: ssrConditions, externalConditions: ssrConditions } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      testTimeout: options.testTimeout ?? 30_000,
      isolate: options.isolate ?? false,
      hookTimeout: options.testTimeout ?? 60_000,
      reporters: ['default', ['json', { outputFile: 'test-results.json' }]],
      // Vitest's default is one worker per core but one (two cores here), which runs every file in turn while
      // most of their time is spent waiting on Python, pdb and sandboxes: two files at once.
      ...(options.sequential ? { fileParallelism: false } : { maxWorkers: 2, minWorkers: 1 }),
      coverage: {
        provider: 'v8',
        include: ['src/**/*.ts'],
        exclude: ['src/**/*.test.ts', 'src/index.ts', 'src/**/types.ts', 'src/**/*-types.ts'],
        reporter: ['text-summary', 'json-summary'],
        ...(threshold ? { thresholds: { lines: threshold, statements: threshold, functions: threshold, branches: Math.min(threshold, 80) } } : {}),
      },
    },
  });
}
