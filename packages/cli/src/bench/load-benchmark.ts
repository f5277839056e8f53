import { loadPlugin, PluginLoadError, type BenchmarkV1 } from '@debug-gym/core';
import { closestKey } from '@debug-gym/server';
import { ConfigError } from '../config/config-error.js';

/** The benchmarks the CLI ships with (its own dependencies), by name. */
export const BENCHMARK_PACKAGES: Readonly<Record<string, string>> = {
  aider: '@debug-gym/bench-aider',
  'mini-nightmare': '@debug-gym/bench-mini-nightmare',
  r2egym: '@debug-gym/bench-r2egym',
  swebench: '@debug-gym/bench-swebench',
  'swebench-debug': '@debug-gym/bench-swebench-debug',
  swegym: '@debug-gym/bench-swegym',
  swesmith: '@debug-gym/bench-swesmith',
};

/** `mini_nightmare` (the original's spelling) → `mini-nightmare`. */
export function benchmarkKey(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, '-');
}

/**
 * A benchmark by name (`aider`, `mini-nightmare`, `swebench`, or a third party's `x` for
 * `@debug-gym/bench-x` / `debug-gym-bench-x`), package name, or path to a module whose default
 * export implements BenchmarkV1. Goes through the plugin loader like tools: bundled benchmarks
 * resolve from the CLI's own dependencies first, everything else from `from` (the config's folder).
 */
export async function loadBenchmark(name: string, options: { from?: string } = {}): Promise<BenchmarkV1> {
  const isPath = name.startsWith('.') || name.startsWith('/') || name.startsWith('file:');
  const key = isPath || name.includes('/') ? name : benchmarkKey(name);
  try {
    return await loadPlugin('benchmark', key, { ...(options.from ? { from: options.from } : {}), parents: [import.meta.url] });
  } catch (error) {
    if (!PluginLoadError.isInstance(error)) throw error;
    const notFound = error.message.includes('no package found');
    if (notFound && !isPath && !name.includes('/') && !name.startsWith('debug-gym-bench-')) {
      const suggestion = closestKey(key, Object.keys(BENCHMARK_PACKAGES));
      throw new ConfigError(
        `Unknown benchmark '${name}'${suggestion ? `; did you mean '${suggestion}'?` : '.'} Benchmarks: ${Object.keys(BENCHMARK_PACKAGES).join(', ')} (or a package / path whose default export is a benchmark).`,
      );
    }
    throw new ConfigError(`Cannot load benchmark '${name}': ${error.message}`);
  }
}
