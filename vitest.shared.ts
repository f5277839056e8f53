import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
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
  /** Per-test timeout in the end-to-end tier (`test/e2e/`, run by `pnpm test:e2e`). Default 15 minutes. */
  e2eTestTimeout?: number;
  /**
   * `tiered` (default): the shared behaviour suites (files calling `availableBackends()`) run on the local
   * backend in `pnpm test` and on bubblewrap and Docker in `pnpm test:e2e`. `all`: every backend in whatever
   * runs the suite (the attack matrix). DEBUG_GYM_TEST_BACKENDS, when set, wins either way.
   */
  backends?: 'tiered' | 'all';
}

/**
 * Two tiers. `pnpm test` runs `src/**` and `test/**` but `test/e2e/`: the everyday command, every behaviour
 * once, on the local backend, plus each sandbox's own suite (the terminal package's conformance runs on every
 * backend). `pnpm test:e2e` (a package's `test:e2e` script sets DEBUG_GYM_TEST_TIER=e2e) runs `test/e2e/` (soak
 * and sweep tests: many cycles, every instance of a benchmark) and the shared behaviour suites again on
 * bubblewrap and Docker; CI runs it as a step of its own. The e2e tier writes test-results.e2e.json and
 * measures no coverage.
 */
export const testTier = process.env.DEBUG_GYM_TEST_TIER === 'e2e' ? 'e2e' : 'unit';

/** Which backends the shared behaviour suites run on in each tier (see SharedTestOptions.backends). */
const TIER_BACKENDS = { unit: 'local', e2e: 'bubblewrap,docker' } as const;

/**
 * The package's shared behaviour suites outside `test/e2e/`: the files that call `availableBackends()`.
 * The e2e tier runs them again on the sandboxes (their other tests run again with them).
 */
function backendMatrixFiles(dir = 'test'): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('test', 'e2e') ? [] : backendMatrixFiles(path);
    return entry.name.endsWith('.test.ts') && readFileSync(path, 'utf8').includes('availableBackends(') ? [path] : [];
  });
}

export function sharedTestConfig(options: SharedTestOptions = {}): ViteUserConfig {
  const threshold = options.coverageThreshold;
  const ssrConditions = options.nodeConditionsOnly ? ['@debug-gym/source', 'node'] : conditions;
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: ssrConditions, externalConditions: ssrConditions } },
    test: {
      include: testTier === 'e2e' ? ['test/e2e/**/*.test.ts', ...(options.backends === 'all' ? [] : backendMatrixFiles())] : ['src/**/*.test.ts', 'test/**/*.test.ts'],
      env: {
        DEBUG_GYM_TEST_BACKENDS: process.env.DEBUG_GYM_TEST_BACKENDS ?? (options.backends === 'all' ? 'local,bubblewrap,docker' : TIER_BACKENDS[testTier]),
      },
      exclude: testTier === 'e2e' ? ['node_modules/**'] : ['test/e2e/**', 'node_modules/**'],
      testTimeout: testTier === 'e2e' ? (options.e2eTestTimeout ?? 900_000) : (options.testTimeout ?? 30_000),
      isolate: options.isolate ?? false,
      hookTimeout: testTier === 'e2e' ? (options.e2eTestTimeout ?? 900_000) : (options.testTimeout ?? 60_000),
      reporters: ['default', ['json', { outputFile: testTier === 'e2e' ? 'test-results.e2e.json' : 'test-results.json' }]],
      // Vitest's default is one worker per core but one (two cores here), which runs every file in turn while
      // most of their time is spent waiting on Python, pdb and sandboxes: two files at once.
      ...(options.sequential || testTier === 'e2e' ? { fileParallelism: false } : { maxWorkers: 2, minWorkers: 1 }),
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
