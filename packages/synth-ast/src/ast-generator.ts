import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { defineSynthGenerator, DebugGymError, type SynthCandidate, type SynthContext } from '@debug-gym/spec';
// Imported under another name: vite's SSR transform (vitest, from source) rewrites an imported
// binding called `meta` inside `import.meta` too, and fails.
import { meta as manifest } from './meta.js';

/** The mutation operators, in the order `mutate.py` knows them. */
export const AST_OPERATORS = [
  'off-by-one',
  'flip-comparison',
  'loosen-comparison',
  'swap-arguments',
  'wrong-operator',
  'drop-statement',
  'duplicate-statement',
  'early-return',
  'missing-return',
  'wrong-default',
  'swallow-exception',
  'mutate-constant',
  'replace-variable',
  'break-loop-condition',
  'copy-to-inplace',
] as const;

export type AstOperator = (typeof AST_OPERATORS)[number];

/** The mutator (standard-library Python), shipped beside `dist/` and `src/`. */
export const MUTATE_SCRIPT = join(import.meta.dirname, '..', 'python', 'mutate.py');

/** What `mutate.py` says about one file set: the valid candidates and the rejected ones by `operator:reason`. */
export interface AstMutationResult {
  candidates: SynthCandidate[];
  rejected: Record<string, number>;
}

/**
 * Run `mutate.py` over `files` of `repoDir` with the host's Python (it parses, never imports, the
 * repository's code) and collect its candidates.
 */
export async function mutateFiles(options: { python: string; repoDir: string; files: readonly string[]; operators?: readonly string[]; signal?: AbortSignal }): Promise<AstMutationResult> {
  const child = spawn(options.python, [MUTATE_SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'], ...(options.signal ? { signal: options.signal } : {}) });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.end(JSON.stringify({ repo: options.repoDir, files: options.files, operators: options.operators ?? [] }));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  }).catch((cause: Error) => {
    throw new DebugGymError('DG_SYNTH_GENERATOR_FAILED', `could not run ${options.python} ${MUTATE_SCRIPT}: ${cause.message}. Set DEBUG_GYM_PYTHON to a Python >= 3.9.`, { cause });
  });
  if (code !== 0) {
    const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join('\n');
    throw new DebugGymError('DG_SYNTH_GENERATOR_FAILED', `the AST mutator exited with ${String(code)}: ${stderr}. It needs Python >= 3.9 (ast.unparse); set DEBUG_GYM_PYTHON.`);
  }
  const candidates: SynthCandidate[] = [];
  let rejected: Record<string, number> = {};
  for (const line of Buffer.concat(out).toString('utf8').split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as Record<string, unknown>;
    if (row.rejected) {
      rejected = row.rejected as Record<string, number>;
      continue;
    }
    candidates.push({ ...(row as unknown as Omit<SynthCandidate, 'generator'>), generator: 'ast' });
  }
  return { candidates, rejected };
}

/**
 * `ast`: procedural bugs, each a small mutation of one Python function that keeps the file valid
 * (the edited definition parses, compiles and is exactly the intended AST).
 */
export const astGenerator = defineSynthGenerator({
  specificationVersion: 'synth-generator-v1',
  meta: manifest,
  name: 'ast',
  description: 'Small AST mutations of Python functions (off-by-one, flipped comparisons, swapped arguments, dropped statements, ...)',
  operators: AST_OPERATORS,
  async generate(context: SynthContext): Promise<SynthCandidate[]> {
    const result = await mutateFiles({ python: context.python, repoDir: context.repoDir, files: context.files, operators: context.operators, ...(context.signal ? { signal: context.signal } : {}) });
    const rejectedTotal = Object.values(result.rejected).reduce((sum, count) => sum + count, 0);
    context.log?.(`ast: ${result.candidates.length} candidates from ${context.files.length} files (${rejectedTotal} mutations rejected as invalid or no-ops)`);
    return result.candidates;
  },
});
