import { chmod, mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  BenchmarkDataError,
  defineBenchmark,
  type BenchmarkDataset,
  type BenchmarkTask,
  type BenchmarkV1,
  type EvalProcedure,
  type LoadTasksOptions,
  type RunResult,
  type Scorer,
  type TaskSecret,
  type ToolCall,
} from '@debug-gym/spec';
import { addedLines, defaultCacheDir, distinctiveLine, fetchControls, patchToRewriteCalls } from '@debug-gym/plugin-kit';
import { Selection, fetchHfDataset, parseSelectors, streamRows, type HfDatasetRef } from '@debug-gym/bench-swesmith';
import { evalDetails, instructionsOf, testCommandOf } from './harness.js';
import { InstanceFormatError, instanceIdOf, parseInstance, type R2egymInstance } from './instance.js';
import { meta } from './meta.js';
import { commitPatch } from './parsed-commit.js';
import { R2EGYM_SPLITS } from './splits.js';

/** Benchmark-specific `loadTasks` options (`benchmark_options` in a config, `-p benchmark_options.x=y`). */
export interface R2egymOptions {
  /** A Hub dataset in R2E-Gym's format (default `R2E-Gym/R2E-Gym-Lite`). Ignored with `dataPath`. */
  dataset?: string;
  /** Its revision (default: the original's pin for R2E-Gym-Lite, else `main`). */
  revision?: string;
  /** Its split (default `train`). */
  split?: string;
  /** Replace the namespace of every `docker_image` (e.g. a registry mirror); ids do not change. */
  namespace?: string;
  /** Seconds one test run may take (default 300, R2E-Gym's `run_tests` timeout). */
  runTimeout?: number;
}

/** The original debug-gym's default: `R2E-Gym/R2E-Gym-Lite` at the revision it pins, split `train`. */
export const R2EGYM_DATASET: HfDatasetRef = { repo: 'R2E-Gym/R2E-Gym-Lite', revision: '8d3163011f01f9393bb3dc7700497a79a8686ae5', split: 'train' };

/** The image's virtual environment first on PATH (what `source .venv/bin/activate` does; R2E-Gym's Dockerfiles set the same). */
export const VENV_PATH = '/testbed/.venv/bin:/root/.local/bin:/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const BENCHMARK = 'r2egym';
const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
const GIT = "git -c safe.directory='*'";
/** Where the hidden tests go while they run (R2E-Gym: `/testbed/r2e_tests`, a link to `/root/r2e_tests`). */
export const HIDDEN_TESTS_DIR = 'r2e_tests';
/** Marker of a failed copy of the hidden tests (the run is not graded). */
export const HIDDEN_TESTS_FAILED = '>>>>> Hidden tests could not be written';

/**
 * The reset, as the original's `setup_terminal` (`.pyc` and `__pycache__` removed; `run_tests.sh`
 * and `r2e_tests` taken out of the repository; git identity set; the remote removed), and one step
 * further: every ref but HEAD's branch is deleted and the reflogs expired, so `git log --all` no
 * longer leads to the fixing commit (upstream only removes the remote).
 */
export function resetCommands(): string[] {
  return [
    `git config --global --get-all safe.directory 2>/dev/null | grep -qx '[*]' || git config --global --add safe.directory '*' 2>/dev/null || true`,
    "find . -name '*.pyc' -delete 2>/dev/null; find . -name '__pycache__' -prune -exec rm -rf {} + 2>/dev/null; true",
    `rm -rf ${HIDDEN_TESTS_DIR} run_tests.sh`,
    `${GIT} remote remove origin 2>/dev/null || true`,
    `keep=$(${GIT} symbolic-ref -q HEAD || true); ${GIT} for-each-ref --format='%(refname)' | while read -r ref; do [ "$ref" = "$keep" ] || ${GIT} update-ref -d "$ref"; done; ${GIT} reflog expire --expire=now --all 2>/dev/null; true`,
    `${GIT} config user.name 'debug-gym' && ${GIT} config user.email '<>'`,
  ];
}

/**
 * R2E-Gym's `create_tests`, as a script read from stdin: `r2e_tests/` with an empty `__init__.py`,
 * each hidden test file (base64 in the script: byte for byte), and pillow's `Tests/helper.py` when the
 * repository has one (upstream's heuristic).
 */
export function hiddenTestsScript(instance: Pick<R2egymInstance, 'test_files'>): string {
  const lines = ['set -e', `rm -rf ${HIDDEN_TESTS_DIR}`, `mkdir ${HIDDEN_TESTS_DIR}`, `: > ${HIDDEN_TESTS_DIR}/__init__.py`];
  for (const file of instance.test_files) lines.push(`printf '%s' '${Buffer.from(file.code, 'utf8').toString('base64')}' | base64 -d > ${quote(`${HIDDEN_TESTS_DIR}/${file.name}`)}`);
  lines.push(`if [ -f Tests/helper.py ]; then cp Tests/helper.py ${HIDDEN_TESTS_DIR}/helper.py; fi`);
  return `${lines.join('\n')}\n`;
}

/**
 * One evaluation: the hidden tests written into `r2e_tests/` (from the instance, on stdin: they are
 * never in the sandbox between runs), the test command, the tests removed again. R2E-Gym's images
 * run `bash /root/run_tests.sh`, the same command as the original's entrypoint.
 */
export function r2egymEvaluation(instance: R2egymInstance, env: Record<string, string>): EvalProcedure {
  const script = hiddenTestsScript(instance);
  const exports = Object.entries(env)
    .map(([name, value]) => `export ${name}=${quote(value)}; `)
    .join('');
  return async ({ terminal, entrypoint, timeoutMs }) => {
    const started = Date.now();
    const written = await terminal.run('bash -s', { input: script, timeoutMs: 60_000 });
    if (written.exitCode !== 0) {
      await terminal.run(`rm -rf ${HIDDEN_TESTS_DIR}`, { timeoutMs: 60_000 });
      return { ...written, exitCode: written.exitCode === 0 ? 1 : written.exitCode, output: `${HIDDEN_TESTS_FAILED}\n${written.output}`, durationMs: Date.now() - started };
    }
    let run: RunResult;
    try {
      run = await terminal.run(`${exports}${entrypoint}`, { timeoutMs });
    } finally {
      await terminal.run(`rm -rf ${HIDDEN_TESTS_DIR}`, { timeoutMs: 60_000 });
    }
    return { ...run, durationMs: Date.now() - started };
  };
}

/**
 * R2E-Gym's grading as an env scorer (the original's `eval` + `calculate_score` after fix #363):
 * ANSI codes and `\r` out of the output, the log parsed, reward 1 when the map of parsed tests
 * (less the XFAIL/XPASS tests the expected map does not list) equals the expected map, else 0.
 * Score = reward, max score 1 (the original's `calculate_max_score`).
 */
export function r2egymScorer(instance: R2egymInstance): Scorer {
  return (run) => {
    const output = run.output.replace(/\x1b\[[0-9;]*m|\r/g, '');
    if (run.timedOut) {
      return { output: `Command timed out after ${Math.round(run.timeoutMs / 1000)} seconds${output.trim() ? `\nPartial output:\n${output}` : ''}`, score: 0, maxScore: 1, success: false, details: { reward: 0, reason: 'timeout' } };
    }
    if (output.startsWith(HIDDEN_TESTS_FAILED)) return { output, score: 0, maxScore: 1, success: false, details: { reward: 0, reason: HIDDEN_TESTS_FAILED } };
    const details = evalDetails(output, instance.expected);
    return { output, score: details.reward, maxScore: 1, success: details.reward === 1, details: { ...details, expected_tests: Object.keys(instance.expected).length } };
  };
}

/**
 * The reference fix: `ParsedCommit.get_patch()` of the fixing commit (Python files, as R2E-Gym
 * validates its images with it; the original takes `git diff HEAD <commit_hash>` in the container,
 * the same change for Python files). Lines past a hunk's counts are dropped (upstream's diff parser
 * reads the empty string after a diff's last newline as a context line).
 */
export function goldPatchOf(instance: Pick<R2egymInstance, 'parsed_commit'>): string | undefined {
  if (!instance.parsed_commit) return undefined;
  const commit = structuredClone(instance.parsed_commit);
  for (const file of commit.file_diffs) {
    for (const hunk of file.hunks ?? []) {
      const { old_range: oldRange, new_range: newRange } = hunk.descriptor;
      let oldLeft = oldRange.length ?? 1;
      let newLeft = newRange.length ?? 1;
      const kept = [];
      for (const line of hunk.line_group.all_lines) {
        if (line.type === 'note') {
          kept.push(line);
          continue;
        }
        if (oldLeft <= 0 && newLeft <= 0) break;
        if (line.type !== 'added') oldLeft -= 1;
        if (line.type !== 'deleted') newLeft -= 1;
        kept.push(line);
      }
      hunk.line_group.all_lines = kept;
    }
  }
  const patch = commitPatch(commit);
  return patch.trim() ? patch : undefined;
}

const DEFAULT_INSTRUCTIONS = 'Some tests of this repository fail because of a bug in its code. Find the bug and fix it; the hidden tests run when you evaluate.';

/** The task of one instance. `emptyDir` is what is copied into /testbed when the repository is in the image. */
export function instanceTask(instance: R2egymInstance, emptyDir: string, options: R2egymOptions = {}): BenchmarkTask {
  const { entrypoint, env } = testCommandOf(instance.repo_name, instance.test_files.map((file) => file.code));
  const local = instance.repo_path !== undefined;
  const namespace = options.namespace?.endsWith('/') ? options.namespace.slice(0, -1) : options.namespace;
  const image = namespace ? `${namespace}/${instanceIdOf(instance.docker_image)}` : instance.docker_image;
  const instructions = instructionsOf(instance.problem_statement);
  const goldPatch = goldPatchOf(instance);
  const task: BenchmarkTask = {
    id: instance.instance_id,
    benchmark: BENCHMARK,
    path: instance.repo_path ?? emptyDir,
    instructions: instructions.trim() ? instructions : DEFAULT_INSTRUCTIONS,
    entrypoint,
    debugEntrypoint: entrypoint.replace('pytest', 'pytest -sq'),
    ignorePatterns: ['.git/', `${HIDDEN_TESTS_DIR}/`],
    setupCommands: resetCommands(),
    runTimeout: options.runTimeout ?? 300,
    scorer: r2egymScorer(instance),
    maxScore: 1,
    evaluation: r2egymEvaluation(instance, env),
    ...(goldPatch ? { goldPatch } : {}),
    metadata: {
      repo_name: instance.repo_name,
      docker_image: instance.docker_image,
      commit_hash: instance.commit_hash,
      ...(local ? { repo_path: instance.repo_path } : {}),
      hidden_tests: instance.test_files.map((file) => file.name),
      expected_tests: Object.keys(instance.expected).length,
      modified_files: instance.modified_files,
    },
  };
  if (!local) {
    // 'python' looked up on PATH when it runs: the image's .venv first (the working copy is filled after the sandbox's helper starts).
    task.docker = { image, workdir: '/testbed', python: 'python', env: { PATH: VENV_PATH, VIRTUAL_ENV: '/testbed/.venv', ...env }, required: true };
  }
  instances.set(task, instance);
  return task;
}

const instances = new WeakMap<BenchmarkTask, R2egymInstance>();

/** The instance a task was made from. */
export function taskInstance(task: BenchmarkTask): R2egymInstance | undefined {
  return instances.get(task);
}

async function emptyWorkdir(cacheDir: string): Promise<string> {
  const dir = join(cacheDir, BENCHMARK, 'empty-workdir');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

async function resolveSource(options: LoadTasksOptions, extra: R2egymOptions, cacheDir: string): Promise<{ files: string[]; fix: string }> {
  if (options.dataPath) return { files: [options.dataPath], fix: `repair ${options.dataPath} (R2E-Gym instances: JSONL, a JSON list or Parquet), or drop --data-path to download ${R2EGYM_DATASET.repo}` };
  const dataset: HfDatasetRef =
    extra.dataset && extra.dataset !== R2EGYM_DATASET.repo
      ? { repo: extra.dataset, revision: extra.revision ?? 'main', split: extra.split ?? 'train' }
      : { ...R2EGYM_DATASET, ...(extra.revision ? { revision: extra.revision } : {}), ...(extra.split ? { split: extra.split } : {}) };
  const fetched = await fetchHfDataset({ benchmark: BENCHMARK, cacheDir, dataset, ...fetchControls(options) });
  return { files: fetched.files, fix: `delete ${dirname(fetched.files[0] as string)} and run the command again to download it afresh, or pass a local copy with --data-path` };
}

/** Loading statistics, beside the tasks. */
export interface StreamStats {
  rows: number;
  warnings: string[];
  stoppedEarly: boolean;
}

/**
 * The selected instances' tasks, streamed from the dataset file(s) (one row, or one Parquet row
 * group, in memory at a time): with one pattern (`all`, a split, `repo:`, `re:`) each task is
 * yielded as its row is read; with ids, reading stops once all are found.
 */
export async function* streamTasks(options: LoadTasksOptions = {}, stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false }): AsyncGenerator<BenchmarkTask> {
  const extra = (options.options ?? {}) as R2egymOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const source = await resolveSource(options, extra, cacheDir);
  const emptyDir = await emptyWorkdir(cacheDir);
  const selectors = parseSelectors(BENCHMARK, options.tasks, R2EGYM_SPLITS);
  const streaming = selectors.length === 1 && selectors[0]?.kind !== 'id';
  const selection = new Selection<BenchmarkTask>(BENCHMARK, selectors, R2EGYM_SPLITS.excluded ?? [], !streaming);
  const seen = new Set<string>();
  let usable = 0;
  for (const file of source.files) {
    options.onProgress?.({ phase: 'read', message: `reading ${file}` });
    for await (const item of streamRows(file, BENCHMARK, source.fix)) {
      options.signal?.throwIfAborted();
      stats.rows += 1;
      if ('error' in item) {
        stats.warnings.push(`${file}: ${item.where} is ${item.error}; the instance is left out. Fix: ${source.fix}`);
        continue;
      }
      const raw = item.row as Record<string, unknown> | null;
      const id = typeof raw?.docker_image === 'string' ? instanceIdOf(raw.docker_image) : null;
      const problem = (error: Error): void => {
        const where = `${item.where}${id ? ` (${id})` : ''}`;
        if (id && options.tasks?.includes(id)) throw new BenchmarkDataError(BENCHMARK, `instance ${id} is broken: ${where}: ${error.message}`, { file, fix: source.fix });
        stats.warnings.push(`${file}: ${where}: ${error.message}; the instance is left out. Fix: ${source.fix}`);
      };
      if (!id) {
        problem(new InstanceFormatError("field 'docker_image' is missing or not a string"));
        continue;
      }
      if (seen.has(id)) {
        problem(new InstanceFormatError(`instance ${id} appears twice`));
        continue;
      }
      seen.add(id);
      let task: BenchmarkTask | null;
      try {
        task = selection.offer({ id, repos: rowRepos(raw as Record<string, unknown>, id) }, () => instanceTask(parseInstance(raw, dirname(file)), emptyDir, extra));
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
  if (usable === 0 && stats.rows > 0) throw new BenchmarkDataError(BENCHMARK, 'the file holds no usable instance', { file: source.files.join(', '), fix: source.fix });
  const selected = selection.result();
  if (!streaming) yield* selected;
}

/** What `repo:<name>` matches (lowercase): `repo_name`, and the image's repository without `_final`. */
function rowRepos(row: Record<string, unknown>, id: string): string[] {
  const fromImage = (id.split(':')[0] ?? '').replace(/_final$/, '');
  return [typeof row.repo_name === 'string' ? row.repo_name : '', fromImage].map((repo) => repo.toLowerCase()).filter(Boolean);
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false };
  const tasks: BenchmarkTask[] = [];
  for await (const task of streamTasks(options, stats)) tasks.push(task);
  const extra = (options.options ?? {}) as R2egymOptions;
  const custom = extra.dataset && extra.dataset !== R2EGYM_DATASET.repo;
  const source = options.dataPath ?? `${extra.dataset ?? R2EGYM_DATASET.repo}${custom ? '' : `@${(extra.revision ?? R2EGYM_DATASET.revision).slice(0, 12)}`}`;
  return { benchmark: BENCHMARK, source, tasks, complete: stats.warnings.length === 0, warnings: stats.warnings };
}

/** The reference fix as `rewrite` calls. */
export async function r2egymSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  return task.goldPatch ? patchToRewriteCalls(task.goldPatch) : null;
}

/**
 * What the agent must not read: the hidden tests (written only while they run; a local-folder
 * instance never has them in the sandbox otherwise, an image keeps its own copy in /r2e_tests,
 * outside the working copy) and the fix (reachable from no ref after the reset).
 */
export async function r2egymSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const instance = instances.get(task);
  if (!instance) return [];
  const secrets: TaskSecret[] = [];
  const fix = task.goldPatch ? addedLines(task.goldPatch) : '';
  const tests = instance.test_files.map((file) => file.code).join('\n');
  // Lines the agent can read anyway: the files the fix changes as they are before it, and for a local
  // folder every Python file of the repository (hidden tests are often copies of the repository's own).
  const before = [...(instance.parsed_commit?.file_diffs ?? []).map((file) => file.old_file_content ?? ''), ...(instance.repo_path ? await pythonSources(instance.repo_path) : [])];
  const testMarker = distinctiveLine(tests, [fix, ...before]);
  if (testMarker) secrets.push({ label: 'hidden tests (r2e_tests)', marker: testMarker, promise: instance.repo_path ? 'sandbox' : 'tools' });
  const goldMarker = fix ? distinctiveLine(fix, [tests, ...before]) : null;
  if (goldMarker) secrets.push({ label: 'reference fix (the fixing commit)', marker: goldMarker, promise: 'tools' });
  return secrets;
}

/** The text of the Python files of a folder (not .git, .venv, r2e_tests), at most 2,000 files. */
async function pythonSources(root: string): Promise<string[]> {
  const texts: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (texts.length >= 2000) return;
      if (entry.isDirectory()) {
        if (!['.git', '.venv', HIDDEN_TESTS_DIR, 'node_modules'].includes(entry.name)) await walk(join(dir, entry.name));
      } else if (entry.isFile() && entry.name.endsWith('.py')) texts.push(await readFile(join(dir, entry.name), 'utf8'));
    }
  };
  await walk(root).catch(() => undefined);
  return texts;
}

/**
 * R2E-Gym: real commits of 10+ Python repositories, each in its image (the repository before the
 * fix in /testbed, hidden tests), graded as R2E-Gym grades: every expected test's status must match.
 */
export const r2egym: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: BENCHMARK,
  description: "R2E-Gym's commits in their images (or local folders), with hidden tests; resolved when every expected test has its expected status, as R2E-Gym grades.",
  defaultTools: ['bash', 'view', 'rewrite', 'eval', 'submit'],
  loadTasks,
  solution: (task) => r2egymSolution(task),
  secrets: (task) => r2egymSecrets(task),
});
