import type { BenchmarkV1 } from './benchmark-v1.js';

/** Identity helper that checks the shape (like `defineToolPlugin`). */
export function defineBenchmark<T extends BenchmarkV1>(benchmark: T): T {
  if (benchmark.specificationVersion !== 'benchmark-v1') {
    throw new TypeError(`Benchmark '${String(benchmark.name)}' must declare specificationVersion: 'benchmark-v1'.`);
  }
  if (typeof benchmark.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(benchmark.name)) {
    throw new TypeError(`Benchmark name must be kebab-case, got '${String(benchmark.name)}'.`);
  }
  if (typeof benchmark.loadTasks !== 'function') throw new TypeError(`Benchmark '${benchmark.name}' has no loadTasks().`);
  if (benchmark.meta !== undefined && (typeof benchmark.meta !== 'object' || benchmark.meta === null)) {
    throw new TypeError(`Benchmark '${benchmark.name}': meta must be { name, version, specVersion }.`);
  }
  return benchmark;
}

/** True for an object implementing BenchmarkV1 (for loaders). */
export function isBenchmark(value: unknown): value is BenchmarkV1 {
  const candidate = value as Partial<BenchmarkV1> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.specificationVersion === 'benchmark-v1' &&
    typeof candidate.name === 'string' &&
    typeof candidate.loadTasks === 'function'
  );
}
