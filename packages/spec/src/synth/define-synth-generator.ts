import type { SynthGeneratorV1 } from './synth-generator-v1.js';

/** Identity helper that checks the shape (like `defineBenchmark`). */
export function defineSynthGenerator<T extends SynthGeneratorV1>(generator: T): T {
  const problem = describeSynthGeneratorProblem(generator);
  if (problem) throw new TypeError(problem);
  return generator;
}

/** Why `value` is not a `SynthGeneratorV1`, or null when it is one. */
export function describeSynthGeneratorProblem(value: unknown): string | null {
  const candidate = value as Partial<SynthGeneratorV1> | null;
  if (typeof candidate !== 'object' || candidate === null) return 'a synth generator must be an object (use defineSynthGenerator).';
  if (candidate.specificationVersion !== 'synth-generator-v1') return `synth generator '${String(candidate.name)}' must declare specificationVersion: 'synth-generator-v1'.`;
  if (typeof candidate.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(candidate.name)) return `synth generator name must be kebab-case, got '${String(candidate.name)}'.`;
  if (typeof candidate.generate !== 'function') return `synth generator '${candidate.name}' has no generate().`;
  if (candidate.operators !== undefined && (!Array.isArray(candidate.operators) || !candidate.operators.every((operator) => typeof operator === 'string'))) {
    return `synth generator '${candidate.name}': operators must be a list of names.`;
  }
  return null;
}

/** True for an object implementing SynthGeneratorV1 (for loaders). */
export function isSynthGenerator(value: unknown): value is SynthGeneratorV1 {
  return describeSynthGeneratorProblem(value) === null;
}
