import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchmarkDataError, defineBenchmark, type BenchmarkDataset, type BenchmarkTask, type BenchmarkV1, type LoadTasksOptions, type TaskSecret, type ToolCall } from '@debug-gym/spec';
import { defaultCacheDir, addedLines, distinctiveLine, fetchControls, patchToRewriteCalls, selectTasks } from '@debug-gym/plugin-kit';
import { swebenchEvaluation, swebenchScorer } from './evaluation.js';
import { SWEBENCH_DATASETS, fetchDataset, type HfDataset, type SwebenchDatasetName } from './hf-dataset.js';
import { instanceImageName, type SwebenchInstance } from './instance.js';
import { readInstances } from './read-instances.js';
import { entrypointOf, evalEnvironment, preTestCommands } from './test-spec.js';
import { meta } from './meta.js';

/** Benchmark-specific `loadTasks` options (`options` field). */
export interface SwebenchOptions {
  /** Which public dataset to download (default `verified`). Ignored with `dataPath`. */
  dataset?: SwebenchDatasetName;
  /** Download this URL (Parquet, JSON or JSONL) instead of the dataset's Hugging Face file. */
  url?: string;
  /** Expected SHA-256 of the download. */
  sha256?: string;
  /** Image architecture (default `x86_64`). */
  arch?: string;
  /** Image namespace (default `swebench`, Docker Hub). */
  namespace?: string;
}

/** The testbed's conda env first on PATH (what `conda activate testbed` does for commands). */
export const TESTBED_PATH = '/opt/miniconda3/envs/testbed/bin:/opt/miniconda3/condabin:/opt/miniconda3/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The task of one instance. `emptyDir` is copied into `/testbed`, where the image has the repository. */
export function instanceTask(instance: SwebenchInstance, emptyDir: string, options: Pick<SwebenchOptions, 'arch' | 'namespace'> = {}): BenchmarkTask {
  const { entrypoint, env } = entrypointOf(instance);
  const image = instanceImageName(instance.instance_id, options);
  const task: BenchmarkTask = {
    id: instance.instance_id,
    benchmark: 'swebench',
    path: emptyDir,
    instructions: instance.problem_statement,
    entrypoint,
    ignorePatterns: ['.git/'],
    setupCommands: ['git remote remove origin 2>/dev/null || true', ...preTestCommands(instance)],
    runTimeout: 300,
    scorer: swebenchScorer(instance),
    maxScore: Math.max(instance.FAIL_TO_PASS.length, 1),
    evaluation: swebenchEvaluation(instance),
    goldPatch: instance.patch,
    docker: {
      image,
      workdir: '/testbed',
      python: 'python',
      env: { PATH: TESTBED_PATH, CONDA_DEFAULT_ENV: 'testbed', CONDA_PREFIX: '/opt/miniconda3/envs/testbed', ...evalEnvironment(instance), ...env },
      required: true,
    },
    metadata: {
      repo: instance.repo,
      base_commit: instance.base_commit,
      version: instance.version,
      FAIL_TO_PASS: instance.FAIL_TO_PASS,
      PASS_TO_PASS: instance.PASS_TO_PASS,
      ...(instance.environment_setup_commit ? { environment_setup_commit: instance.environment_setup_commit } : {}),
      ...(instance.created_at ? { created_at: instance.created_at } : {}),
      ...(instance.difficulty ? { difficulty: instance.difficulty } : {}),
      ...(instance.log_parser ? { log_parser: instance.log_parser } : {}),
      image,
    },
  };
  // Kept beside the task, not in its metadata: metadata goes into trajectories and results.
  instancesOfTasks.set(task, instance);
  return task;
}

const instancesOfTasks = new WeakMap<BenchmarkTask, SwebenchInstance>();

/**
 * What an instance keeps from the agent: the hidden tests (the test patch is applied only while the
 * tests run, then reverted) and the gold patch. Neither is in the sandbox between test runs.
 */
export async function swebenchSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const instance = instancesOfTasks.get(task);
  const secrets: TaskSecret[] = [];
  const testMarker = instance ? distinctiveLine(addedLines(instance.test_patch), [addedLines(instance.patch)]) : null;
  if (testMarker) secrets.push({ label: 'hidden tests (test patch)', marker: testMarker, promise: 'sandbox' });
  const goldMarker = task.goldPatch ? distinctiveLine(addedLines(task.goldPatch), instance ? [addedLines(instance.test_patch)] : []) : null;
  if (goldMarker) secrets.push({ label: 'gold patch', marker: goldMarker, promise: 'sandbox' });
  return secrets;
}

async function emptyWorkdir(cacheDir: string): Promise<string> {
  const dir = join(cacheDir, 'swebench', 'empty-workdir');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const extra = (options.options ?? {}) as SwebenchOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const warnings: string[] = [];
  let file: string;
  let source: string;
  let fix: string;
  let dataset: HfDataset | null = null;
  if (options.dataPath) {
    file = options.dataPath;
    source = file;
    fix = `repair ${file} (one SWE-bench instance per line, or a JSON list / Parquet file), or drop --data-path to download the dataset`;
  } else {
    const name = extra.dataset ?? 'verified';
    dataset = SWEBENCH_DATASETS[name];
    if (!dataset) throw new BenchmarkDataError('swebench', `unknown dataset '${String(name)}'`, { fix: `use one of: ${Object.keys(SWEBENCH_DATASETS).join(', ')}` });
    const fetched = await fetchDataset({
      cacheDir,
      dataset,
      ...(extra.url ? { url: extra.url } : {}),
      ...(extra.sha256 ? { sha256: extra.sha256 } : {}),
      ...fetchControls(options),
    });
    file = fetched.path;
    source = `${fetched.url}${fetched.downloaded ? '' : ` (cached in ${file})`}`;
    fix = `delete ${file} and run the command again to download it afresh, or pass a local copy with --data-path`;
    if (!existsSync(file)) {
      throw new BenchmarkDataError('swebench', 'the dataset is not in the cache and downloads are disabled', {
        file,
        fix: `allow the download, or download ${fetched.url} yourself and pass it with --data-path (JSON, JSONL or Parquet)`,
      });
    }
    if (dataset.revision === 'main') warnings.push(`${dataset.repo} is not pinned to a revision: the cached copy in ${file} is whatever 'main' was when it was downloaded.`);
  }
  options.onProgress?.({ phase: 'read', message: `reading ${file}` });
  const read = await readInstances(file, 'swebench', fix);
  warnings.push(...read.warnings);
  for (const id of options.tasks ?? []) {
    const problem = read.broken.get(id);
    if (problem) throw new BenchmarkDataError('swebench', `instance ${id} is broken: ${problem}`, { file, fix });
  }
  let complete = read.warnings.length === 0;
  if (dataset && read.instances.length < dataset.expectedCount) {
    complete = false;
    warnings.push(
      `${file} holds ${read.instances.length} usable instances of the ${dataset.expectedCount} of ${dataset.repo} (${dataset.split}): this is a partial dataset, its score is not the benchmark's. Fix: ${fix}`,
    );
  }
  const emptyDir = await emptyWorkdir(cacheDir);
  const selected = selectTasks('swebench', read.instances.map((instance) => ({ id: instance.instance_id, instance })), options.tasks);
  return {
    benchmark: 'swebench',
    source,
    tasks: selected.map(({ instance }) => instanceTask(instance, emptyDir, extra)),
    complete,
    warnings,
    ...(dataset ? { expectedCount: dataset.expectedCount } : {}),
  };
}

/** The gold patch as `rewrite` calls (throws a SolutionError when a rewrite cannot express it: deleted, renamed or binary files). */
export async function swebenchSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  return task.goldPatch ? patchToRewriteCalls(task.goldPatch) : null;
}

/**
 * SWE-bench (Verified / Lite, or a local file): each instance runs in its prebuilt evaluation image,
 * the repository at the base commit in /testbed; the hidden test patch is applied only while the
 * tests run; graded as the harness grades (all FAIL_TO_PASS and PASS_TO_PASS tests pass).
 */
export const swebench: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: 'swebench',
  description: 'SWE-bench Verified / Lite in their prebuilt evaluation images; resolved when every FAIL_TO_PASS and PASS_TO_PASS test passes.',
  defaultTools: ['bash', 'view', 'rewrite', 'eval', 'submit'],
  loadTasks,
  solution: (task) => swebenchSolution(task),
  secrets: (task) => swebenchSecrets(task),
});

