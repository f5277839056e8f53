import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { SynthCandidate, SynthGeneratorV1, Terminal } from '@debug-gym/spec';
import { runBaseline, type Baseline } from './baseline.js';
import { emptyCounts, instanceRow, readmeTable, type OperatorCounts, type SynthInstance } from './dataset.js';
import { prepareRepository } from './prepare-repository.js';
import { interleaved, seededRandom } from './seeded-random.js';
import { SynthError } from './synth-error.js';
import { SandboxTestRunner } from './test-runner.js';
import { validateCandidate, type CandidateResult } from './validate-candidate.js';

/** A generator with the operators asked of it (empty: all of them). */
export interface GeneratorChoice {
  generator: SynthGeneratorV1;
  operators: readonly string[];
}

export interface SynthOptions {
  /** The clean repository (a folder whose `python -m pytest` passes). */
  repository: string;
  /** The dataset folder to write (must not exist, or be empty). */
  out: string;
  generators: readonly GeneratorChoice[];
  /** A new, not yet started sandbox (one per worker). */
  createTerminal: () => Terminal | Promise<Terminal>;
  /** The host's Python, for generators that parse code. */
  python: string;
  seed?: number;
  /** Stop once this many tasks are kept. */
  max?: number;
  /** Keep only tasks whose mutated line is in no failing test's traceback. */
  needsDebugger?: boolean;
  /** Sandboxes validating at once (default 2). */
  workers?: number;
  /** Try at most this many candidates. */
  maxCandidates?: number;
  /** Time limit of one run of the whole clean suite (default 600 s); a candidate's runs get 3 × the measured time + 10 s. */
  suiteTimeoutMs?: number;
  /** The repository's name in instance ids (default: the folder's name). */
  name?: string;
  onProgress?: (progress: SynthProgress) => void;
  log?: (message: string) => void;
  /**
   * Health check of the dataset before it is written (the CLI runs `debug-gym check`'s rules through
   * the SWE-smith plugin): given the instances file in its final layout, the ids of unhealthy tasks
   * with why. They are dropped and counted; the dataset is written without them.
   */
  healthCheck?: (instancesPath: string, instances: readonly SynthInstance[]) => Promise<Map<string, string[]>>;
}

export interface SynthProgress {
  phase: 'baseline' | 'generate' | 'validate' | 'health' | 'write';
  done: number;
  total: number;
  kept: number;
}

export interface SynthReport {
  out: string;
  instancesPath: string;
  instances: SynthInstance[];
  counts: Map<string, OperatorCounts>;
  baseline: Pick<Baseline, 'passing' | 'flaky' | 'total' | 'durationMs'>;
  candidates: number;
  tried: number;
  testRuns: number;
  durationMs: { baseline: number; generate: number; validate: number; total: number };
  seed: number;
  /** Tasks the health check dropped, with why. */
  unhealthy: Record<string, string[]>;
}

/** Synthesize a dataset: baseline, candidates from every generator, validation in sandboxes, features, dedup, write. */
export async function synthesize(options: SynthOptions): Promise<SynthReport> {
  const started = Date.now();
  const seed = options.seed ?? 0;
  const out = resolve(options.out);
  if (existsSync(out) && readdirSync(out).length > 0) throw new SynthError('DG_SYNTH_OUT_EXISTS', `${out} exists and is not empty. Give a new folder with --out (a dataset is written whole or not at all).`);
  const name = (options.name ?? repositoryName(resolve(options.repository))).replace(/[^A-Za-z0-9_.-]/g, '_');
  const partial = join(dirname(out), `.${basename(out)}.partial-${process.pid}`);
  rmSync(partial, { recursive: true, force: true });
  const repoRelative = join('repos', name);
  const repoDir = join(partial, repoRelative);
  const runners: SandboxTestRunner[] = [];
  try {
    const commit = prepareRepository(resolve(options.repository), repoDir);
    const workers = Math.max(1, options.workers ?? 2);
    options.onProgress?.({ phase: 'baseline', done: 0, total: 1, kept: 0 });
    runners.push(...(await Promise.all(Array.from({ length: workers }, async () => SandboxTestRunner.open(await options.createTerminal(), repoDir)))));
    const baseline = await runBaseline(runners[0] as SandboxTestRunner, runners[1 % workers] as SandboxTestRunner, options.suiteTimeoutMs ?? 600_000);
    const baselineDone = Date.now();
    options.log?.(`baseline: ${baseline.passing.length} of ${baseline.total} tests pass (${baseline.flaky.length} flaky, left out); ${baseline.coveredFiles.length} source files called by them`);
    options.onProgress?.({ phase: 'generate', done: 0, total: options.generators.length, kept: 0 });
    const candidates = await generateAll(options, repoDir, baseline.coveredFiles, seed);
    const generated = Date.now();
    const sources = new Map(baseline.coveredFiles.map((file) => [file, readFileSync(join(repoDir, file), 'utf8')]));
    const timeoutMs = Math.max(10_000, 3 * baseline.durationMs + 10_000);
    const decided = await validateAll(candidates, runners, { baseline, sources, timeoutMs }, options);
    const validated = Date.now();
    const createdAt = new Date(0).toISOString().replace('Z', '');
    let instances = decided.kept.map((result) => instanceRow(result, { name, commit, path: repoRelative }, seed, createdAt));
    const instancesPath = join(partial, 'instances.jsonl');
    const writeInstances = (): void => writeFileSync(instancesPath, instances.map((row) => JSON.stringify(row)).join('\n') + (instances.length ? '\n' : ''));
    writeInstances();
    const unhealthy: Record<string, string[]> = {};
    if (options.healthCheck && instances.length > 0) {
      options.onProgress?.({ phase: 'health', done: 0, total: instances.length, kept: instances.length });
      for (const [id, problems] of await options.healthCheck(instancesPath, instances)) unhealthy[id] = problems;
      instances = instances.filter((row) => !unhealthy[row.instance_id]);
      for (const result of decided.kept) {
        const row = decided.counts.get(`${result.candidate.generator}/${result.candidate.operator}`);
        if (row && !instances.some((instance) => instance.patch === result.patch)) {
          row.kept -= 1;
          row.unhealthy += 1;
          if (result.features?.needs_debugger) row.needsDebugger -= 1;
        }
      }
      writeInstances();
    }
    options.onProgress?.({ phase: 'write', done: 0, total: 1, kept: instances.length });
    const report: SynthReport = {
      out,
      instancesPath: join(out, 'instances.jsonl'),
      instances,
      counts: decided.counts,
      baseline: { passing: baseline.passing, flaky: baseline.flaky, total: baseline.total, durationMs: baseline.durationMs },
      candidates: candidates.length,
      tried: decided.tried,
      testRuns: decided.testRuns,
      durationMs: { baseline: baselineDone - started, generate: generated - baselineDone, validate: validated - generated, total: Date.now() - started },
      seed,
      unhealthy,
    };
    writeFileSync(join(partial, 'README.md'), datasetReadme(report, name, options));
    writeFileSync(join(partial, 'synth-report.json'), JSON.stringify({ ...report, instances: undefined, counts: Object.fromEntries(report.counts) }, null, 2) + '\n');
    mkdirSync(dirname(out), { recursive: true });
    rmSync(out, { recursive: true, force: true });
    renameSync(partial, out);
    report.durationMs.total = Date.now() - started;
    return report;
  } finally {
    await Promise.all(runners.map((runner) => runner.close().catch(() => undefined)));
    rmSync(partial, { recursive: true, force: true });
  }
}

async function generateAll(options: SynthOptions, repoDir: string, files: readonly string[], seed: number): Promise<SynthCandidate[]> {
  const all: SynthCandidate[] = [];
  const seen = new Set<string>();
  for (const [index, choice] of options.generators.entries()) {
    const operators = choice.operators.length ? choice.operators : (choice.generator.operators ?? []);
    const made = await choice.generator.generate({ repoDir, files, operators, seed, python: options.python, ...(options.log ? { log: options.log } : {}) });
    for (const candidate of made) {
      const key = `${candidate.file}\0${candidate.line}\0${candidate.endLine}\0${candidate.replacement}`;
      if (seen.has(key)) continue;
      seen.add(key);
      all.push(candidate);
    }
    options.onProgress?.({ phase: 'generate', done: index + 1, total: options.generators.length, kept: 0 });
  }
  const ordered = interleaved(all, (candidate) => `${candidate.generator}/${candidate.operator}`, seededRandom(seed));
  return options.maxCandidates ? ordered.slice(0, options.maxCandidates) : ordered;
}

interface Decided {
  kept: CandidateResult[];
  counts: Map<string, OperatorCounts>;
  tried: number;
  testRuns: number;
}

/**
 * Validate in seeded order on every runner at once; results are decided in that order (not in the
 * order they finish), so a seed gives the same dataset whatever the timing.
 */
async function validateAll(candidates: readonly SynthCandidate[], runners: readonly SandboxTestRunner[], context: Parameters<typeof validateCandidate>[2], options: SynthOptions): Promise<Decided> {
  const results: (CandidateResult | undefined)[] = [];
  const counts = new Map<string, OperatorCounts>();
  const kept: CandidateResult[] = [];
  const patches = new Set<string>();
  const signatures = new Set<string>();
  let next = 0;
  let cursor = 0;
  let testRuns = 0;
  const max = options.max ?? Number.POSITIVE_INFINITY;
  const decide = (): void => {
    while (cursor < results.length && results[cursor] !== undefined && kept.length < max) {
      const result = results[cursor] as CandidateResult;
      cursor += 1;
      const key = `${result.candidate.generator}/${result.candidate.operator}`;
      if (!counts.has(key)) counts.set(key, emptyCounts());
      const row = counts.get(key) as OperatorCounts;
      row.tried += 1;
      if (result.verdict === 'no-test-fails') row.noTestFails += 1;
      else if (result.verdict === 'uncovered') row.uncovered += 1;
      else if (result.verdict === 'timeout') row.timeout += 1;
      else if (result.verdict === 'flaky' || result.verdict === 'not-restored') row.flaky += 1;
      if (result.verdict !== 'valid') continue;
      row.valid += 1;
      if (patches.has(result.patch as string) || signatures.has(result.signature as string)) {
        row.duplicate += 1;
        continue;
      }
      patches.add(result.patch as string);
      signatures.add(result.signature as string);
      if (options.needsDebugger && !result.features?.needs_debugger) continue;
      kept.push(result);
      row.kept += 1;
      if (result.features?.needs_debugger) row.needsDebugger += 1;
    }
    options.onProgress?.({ phase: 'validate', done: cursor, total: candidates.length, kept: kept.length });
  };
  await Promise.all(
    runners.map(async (runner) => {
      while (next < candidates.length && kept.length < max) {
        const index = next;
        next += 1;
        const result = await validateCandidate(candidates[index] as SynthCandidate, runner, context);
        testRuns += result.runs;
        results[index] = result;
        decide();
      }
    }),
  );
  return { kept, counts, tried: cursor, testRuns };
}

function datasetReadme(report: SynthReport, name: string, options: SynthOptions): string {
  const minutes = report.durationMs.total / 60_000;
  const needs = report.instances.filter((row) => row.synth.features.needs_debugger).length;
  return `# ${name}: ${report.instances.length} synthesized debugging tasks

Made by \`debug-gym synth\` (seed ${report.seed}${options.needsDebugger ? ', only tasks that need a debugger' : ''}) from the repository in \`repos/${name}\`:
${report.baseline.passing.length} of its ${report.baseline.total} tests pass on the clean code (${report.baseline.flaky.length} flaky, left out).
Each task in \`instances.jsonl\` is a SWE-smith instance (bug \`patch\`, \`FAIL_TO_PASS\`, \`PASS_TO_PASS\`) over the local
folder \`repo_path\`, with its features in \`synth.features\`. Run it:

\`\`\`bash
pnpm bench swesmith --dataset ${report.out}/instances.jsonl --agent solution
\`\`\`

${readmeTable(report.counts)}

${report.instances.length} tasks kept, ${needs} (${report.instances.length ? Math.round((100 * needs) / report.instances.length) : 0} %) need a debugger (the mutated line is in no failing test's traceback).
${report.tried} of ${report.candidates} candidates tried in ${minutes.toFixed(1)} min (baseline ${(report.durationMs.baseline / 1000).toFixed(0)} s, validation ${(report.durationMs.validate / 1000).toFixed(0)} s, ${report.testRuns} forked test runs).
`;
}

/** The folder's name, or its parent's for a generic one (`src`, as an unpacked Debian source package is cached). */
function repositoryName(path: string): string {
  const name = basename(path);
  return ['src', 'source', 'repo', 'repository'].includes(name) ? basename(dirname(path)) : name;
}
