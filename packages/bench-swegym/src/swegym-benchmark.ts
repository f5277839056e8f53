import { chmod, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import {
  BenchmarkDataError,
  defineBenchmark,
  type BenchmarkDataset,
  type BenchmarkTask,
  type BenchmarkV1,
  type LoadTasksOptions,
  type TaskSecret,
  type ToolCall,
} from '@debug-gym/spec';
import { addedLines, defaultCacheDir, distinctiveLine, fetchControls, patchToRewriteCalls } from '@debug-gym/plugin-kit';
import { InstanceFormatError, TESTBED_PATH, evalEnvironment, parseInstance, preTestCommands, scriptTestCommand, swebenchEvaluation, swebenchScorer, type SwebenchInstance } from '@debug-gym/bench-swebench';
import { Selection, fetchHfDataset, parseSelectors, streamRows, type HfDatasetRef } from '@debug-gym/bench-swesmith';
import { meta } from './meta.js';
import { swegymImageName, swegymTestCommand } from './specs.js';

/** Benchmark-specific `loadTasks` options (`benchmark_options`, `-p benchmark_options.x=y`). */
export interface SwegymOptions {
  /** A Hub dataset in SWE-Gym's (SWE-bench's) format: `SWE-Gym/SWE-Gym` (default, 2,438 instances) or `SWE-Gym/SWE-Gym-Lite` (230). */
  dataset?: string;
  /** Its revision (default `main`: no pinned revision is known; a warning says so). */
  revision?: string;
  /** Its split (default `train`). */
  split?: string;
  /** Image namespace (default `xingyaoww`, Docker Hub). */
  namespace?: string;
  /** Seconds one test run may take (default 300, as bench-swebench). */
  runTimeout?: number;
}

/** SWE-Gym on the Hub. */
export const SWEGYM_DATASETS: Readonly<Record<string, HfDatasetRef & { expectedCount: number }>> = {
  'SWE-Gym/SWE-Gym': { repo: 'SWE-Gym/SWE-Gym', revision: 'main', split: 'train', expectedCount: 2438 },
  'SWE-Gym/SWE-Gym-Lite': { repo: 'SWE-Gym/SWE-Gym-Lite', revision: 'main', split: 'train', expectedCount: 230 },
};
export const SWEGYM_DATASET = SWEGYM_DATASETS['SWE-Gym/SWE-Gym'] as HfDatasetRef & { expectedCount: number };

const BENCHMARK = 'swegym';
/**
 * The evaluation's git commands (and the agent's) trust the working copy: on a sandbox whose copy
 * belongs to another uid (bubblewrap as root, an image's /testbed) git refuses "dubious ownership".
 */
const TRUST_WORKING_COPY = `git config --global --get-all safe.directory 2>/dev/null | grep -qx '[*]' || git config --global --add safe.directory '*' 2>/dev/null || true`;

/** An instance, plus the extra field for a repository that is a local folder (not upstream). */
export type SwegymInstance = SwebenchInstance & { repo_path?: string };

/**
 * debug-gym's entrypoint of an instance (as bench-swebench's `entrypointOf`): the test command
 * (the instance's `eval_script` when it carries one, else SWE-Gym's `make_test_command`) with
 * `--tb=no` → `--tb=short`, leading `NAME=value` assignments moved into the environment.
 */
export function swegymEntrypoint(instance: SwegymInstance): { entrypoint: string; env: Record<string, string> } {
  let command = (scriptTestCommand(instance.eval_script) ?? swegymTestCommand(instance)).replace('--tb=no', '--tb=short');
  const env: Record<string, string> = {};
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=('[^']*'|"[^"]*"|\S+)\s+/;
  for (let match = assignment.exec(command); match; match = assignment.exec(command)) {
    env[match[1] as string] = (match[2] as string).replace(/^(['"])(.*)\1$/, '$2');
    command = command.slice(match[0].length);
  }
  return { entrypoint: command, env };
}

/** The task of one instance. `emptyDir` is copied into `/testbed`, where the image has the repository. */
export function instanceTask(instance: SwegymInstance, emptyDir: string, options: SwegymOptions = {}): BenchmarkTask {
  const { entrypoint, env } = swegymEntrypoint(instance);
  const local = instance.repo_path !== undefined;
  const image = swegymImageName(instance.instance_id, options.namespace ? { namespace: options.namespace } : {});
  // On a local repository, `python -m pytest` runs the terminal's interpreter (a bare `pytest` may be another one).
  const command = local ? entrypoint.replace(/^pytest(?=\s|$)/, 'python -m pytest') : entrypoint;
  const task: BenchmarkTask = {
    id: instance.instance_id,
    benchmark: BENCHMARK,
    path: instance.repo_path ?? emptyDir,
    instructions: instance.problem_statement,
    entrypoint: command,
    ignorePatterns: ['.git/'],
    setupCommands: [TRUST_WORKING_COPY, 'git remote remove origin 2>/dev/null || true', ...preTestCommands(instance)],
    runTimeout: options.runTimeout ?? 300,
    scorer: swebenchScorer(instance),
    maxScore: Math.max(instance.FAIL_TO_PASS.length, 1),
    evaluation: swebenchEvaluation(instance),
    goldPatch: instance.patch,
    metadata: {
      repo: instance.repo,
      base_commit: instance.base_commit,
      version: instance.version,
      FAIL_TO_PASS: instance.FAIL_TO_PASS,
      PASS_TO_PASS: instance.PASS_TO_PASS,
      ...(instance.environment_setup_commit ? { environment_setup_commit: instance.environment_setup_commit } : {}),
      ...(instance.created_at ? { created_at: instance.created_at } : {}),
      ...(local ? { repo_path: instance.repo_path } : { image }),
    },
  };
  if (!local) {
    task.docker = {
      image,
      workdir: '/testbed',
      python: 'python',
      env: { PATH: TESTBED_PATH, CONDA_DEFAULT_ENV: 'testbed', CONDA_PREFIX: '/opt/miniconda3/envs/testbed', ...evalEnvironment(instance), ...env },
      required: true,
    };
  }
  instancesOfTasks.set(task, instance);
  return task;
}

const instancesOfTasks = new WeakMap<BenchmarkTask, SwegymInstance>();

/** The hidden tests (applied only while the tests run) and the gold patch: neither is in the sandbox between runs. */
export async function swegymSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const instance = instancesOfTasks.get(task);
  if (!instance) return [];
  const secrets: TaskSecret[] = [];
  const testMarker = distinctiveLine(addedLines(instance.test_patch), [addedLines(instance.patch)]);
  if (testMarker) secrets.push({ label: 'hidden tests (test patch)', marker: testMarker, promise: 'sandbox' });
  const goldMarker = distinctiveLine(addedLines(instance.patch), [addedLines(instance.test_patch)]);
  if (goldMarker) secrets.push({ label: 'gold patch', marker: goldMarker, promise: 'sandbox' });
  return secrets;
}

/** The gold patch as `rewrite` calls. */
export async function swegymSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  return task.goldPatch ? patchToRewriteCalls(task.goldPatch) : null;
}

async function emptyWorkdir(cacheDir: string): Promise<string> {
  const dir = join(cacheDir, BENCHMARK, 'empty-workdir');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

/** Loading statistics, beside the tasks. */
export interface StreamStats {
  rows: number;
  warnings: string[];
  stoppedEarly: boolean;
}

function parseRow(raw: unknown, baseDir: string): SwegymInstance {
  const instance: SwegymInstance = parseInstance(raw);
  const repoPath = (raw as { repo_path?: unknown }).repo_path;
  if (typeof repoPath === 'string' && repoPath) instance.repo_path = isAbsolute(repoPath) ? repoPath : resolve(baseDir, repoPath);
  return instance;
}

/**
 * The selected instances' tasks, streamed from the dataset file(s) (one row, or one Parquet row
 * group, in memory at a time). Selection as the original's `filter_problems` (ids, `all`) plus
 * `repo:<owner/name>` and `re:<regex>`.
 */
export async function* streamTasks(options: LoadTasksOptions = {}, stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false }): AsyncGenerator<BenchmarkTask> {
  const extra = (options.options ?? {}) as SwegymOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  let files: string[];
  let fix: string;
  if (options.dataPath) {
    files = [options.dataPath];
    fix = `repair ${options.dataPath} (SWE-Gym instances in SWE-bench's format: JSONL, a JSON list or Parquet), or drop --data-path to download ${SWEGYM_DATASET.repo}`;
  } else {
    const known = SWEGYM_DATASETS[extra.dataset ?? SWEGYM_DATASET.repo];
    const dataset: HfDatasetRef = { repo: extra.dataset ?? SWEGYM_DATASET.repo, revision: extra.revision ?? known?.revision ?? 'main', split: extra.split ?? known?.split ?? 'train' };
    const fetched = await fetchHfDataset({ benchmark: BENCHMARK, cacheDir, dataset, ...fetchControls(options) });
    files = fetched.files;
    fix = `delete ${dirname(fetched.files[0] as string)} and run the command again to download it afresh, or pass a local copy with --data-path`;
    if (dataset.revision === 'main') stats.warnings.push(`${dataset.repo} is not pinned to a revision: the cached copy in ${dirname(files[0] as string)} is whatever 'main' was when it was downloaded.`);
  }
  const emptyDir = await emptyWorkdir(cacheDir);
  const selectors = parseSelectors(BENCHMARK, options.tasks, {});
  const streaming = selectors.length === 1 && selectors[0]?.kind !== 'id';
  const selection = new Selection<BenchmarkTask>(BENCHMARK, selectors, [], !streaming);
  const seen = new Set<string>();
  let usable = 0;
  for (const file of files) {
    options.onProgress?.({ phase: 'read', message: `reading ${file}` });
    for await (const item of streamRows(file, BENCHMARK, fix)) {
      options.signal?.throwIfAborted();
      stats.rows += 1;
      if ('error' in item) {
        stats.warnings.push(`${file}: ${item.where} is ${item.error}; the instance is left out. Fix: ${fix}`);
        continue;
      }
      const raw = item.row as Record<string, unknown> | null;
      const id = typeof raw?.instance_id === 'string' ? raw.instance_id : null;
      const problem = (error: Error): void => {
        const where = `${item.where}${id ? ` (${id})` : ''}`;
        if (id && options.tasks?.includes(id)) throw new BenchmarkDataError(BENCHMARK, `instance ${id} is broken: ${where}: ${error.message}`, { file, fix });
        stats.warnings.push(`${file}: ${where}: ${error.message}; the instance is left out. Fix: ${fix}`);
      };
      if (!id) {
        problem(new InstanceFormatError("field 'instance_id' is missing or not a string"));
        continue;
      }
      if (seen.has(id)) {
        problem(new InstanceFormatError(`instance ${id} appears twice`));
        continue;
      }
      seen.add(id);
      let task: BenchmarkTask | null;
      try {
        const repos = [typeof raw?.repo === 'string' ? raw.repo.toLowerCase() : '', (id.split('-').slice(0, -1).join('-') || id).replace('__', '/').toLowerCase()].filter(Boolean);
        task = selection.offer({ id, repos }, () => instanceTask(parseRow(raw, dirname(file)), emptyDir, extra));
      } catch (error) {
        if (!(error instanceof InstanceFormatError)) throw error;
        problem(error);
        continue;
      }
      usable += 1;
      if (task && streaming) yield task;
      if (selection.onlyIds && selection.complete) {
        stats.stoppedEarly = true;
        break;
      }
    }
    if (stats.stoppedEarly) break;
  }
  if (usable === 0 && stats.rows > 0) throw new BenchmarkDataError(BENCHMARK, 'the file holds no usable instance', { file: files.join(', '), fix });
  const selected = selection.result();
  if (!streaming) yield* selected;
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false };
  const tasks: BenchmarkTask[] = [];
  for await (const task of streamTasks(options, stats)) tasks.push(task);
  const extra = (options.options ?? {}) as SwegymOptions;
  const known = options.dataPath ? undefined : SWEGYM_DATASETS[extra.dataset ?? SWEGYM_DATASET.repo];
  const selectedAll = !options.tasks || options.tasks.length === 0 || (options.tasks.length === 1 && options.tasks[0] === 'all');
  let complete = stats.warnings.filter((warning) => !warning.includes('is not pinned')).length === 0;
  if (known && selectedAll && tasks.length < known.expectedCount) {
    complete = false;
    stats.warnings.push(`${known.repo} (${known.split}) has ${known.expectedCount} instances; ${tasks.length} are usable here: a partial dataset, its score is not the benchmark's.`);
  }
  return {
    benchmark: BENCHMARK,
    source: options.dataPath ?? `${extra.dataset ?? SWEGYM_DATASET.repo}@${extra.revision ?? 'main'}`,
    tasks,
    complete,
    warnings: stats.warnings,
    ...(known ? { expectedCount: known.expectedCount } : {}),
  };
}

/**
 * SWE-Gym: 2,438 real GitHub issues of 11 Python repositories in SWE-bench's format, each in its
 * prebuilt image (`xingyaoww/sweb.eval.x86_64.*`); graded as SWE-bench grades (bench-swebench's
 * evaluation and scorer), with SWE-Gym's test commands.
 */
export const swegym: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: BENCHMARK,
  description: "SWE-Gym's issues in their prebuilt images (or local folders); resolved when every FAIL_TO_PASS and PASS_TO_PASS test passes, as SWE-bench's harness grades.",
  defaultTools: ['bash', 'view', 'rewrite', 'eval', 'submit'],
  loadTasks,
  solution: (task) => swegymSolution(task),
  secrets: (task) => swegymSecrets(task),
});
