import type { PluginMeta } from '../plugin/plugin-meta.js';

/**
 * A bug generator for `debug-gym synth`: given a clean Python repository, it proposes candidate bugs
 * (whole-file rewrites of one source file). The synth engine validates each candidate in a sandbox
 * (tests that passed must fail, the reverse patch must restore them), computes its features and
 * writes the kept ones as SWE-smith instances. Packages are `@debug-gym/synth-<name>`, manifest
 * `"debug-gym": { "kind": "synth", "name": "<name>" }`.
 */
export interface SynthGeneratorV1 {
  readonly specificationVersion: 'synth-generator-v1';
  readonly meta?: PluginMeta;
  /** Kebab-case id used on the command line (`--generators ast`). */
  readonly name: string;
  readonly description: string;
  /** Sub-generators a user may pick one by one (`--generators ast/off-by-one`); none: the generator is one. */
  readonly operators?: readonly string[];
  /** Candidate bugs, in a deterministic order for a given context (the engine shuffles them by seed). */
  generate(context: SynthContext): Promise<readonly SynthCandidate[]>;
}

/** What a generator gets. */
export interface SynthContext {
  /** The clean repository on the host (read it, never write it). */
  readonly repoDir: string;
  /** Source files worth mutating, relative to `repoDir` (tests excluded; executed by the test suite). */
  readonly files: readonly string[];
  /** The operators asked for (a subset of `operators`; all when the user named the generator alone). */
  readonly operators: readonly string[];
  /** The dataset's seed: a generator that samples must sample from it. */
  readonly seed: number;
  /** The Python interpreter on the host for parsing (never for running the repository's code). */
  readonly python: string;
  /** Stop early when aborted. */
  readonly signal?: AbortSignal;
  /** Progress lines for the user (one candidate batch, a model call...). */
  readonly log?: (message: string) => void;
}

/**
 * One proposed bug: lines `line`..`endLine` of one file of the clean repository replaced by
 * `replacement` (whole lines, each ending in a newline; empty to delete them). A whole-file rewrite
 * is lines 1..last.
 */
export interface SynthCandidate {
  /** The generator's name and the operator that made it (`ast`, `off-by-one`). */
  readonly generator: string;
  readonly operator: string;
  /** The mutated file, relative to the repository. */
  readonly file: string;
  /** First and last replaced line of the clean file, 1-based, inclusive. */
  readonly line: number;
  readonly endLine: number;
  /** The new text of those lines. */
  readonly replacement: string;
  /** The function (or method) the change is in: its name and the line range of its definition (decorators included). */
  readonly function: { readonly name: string; readonly line: number; readonly endLine: number } | null;
  /** One sentence on what changed (`range(n) → range(n - 1)`). */
  readonly description: string;
}
