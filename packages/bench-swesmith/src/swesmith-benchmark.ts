import { chmod, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  BenchmarkDataError,
  defineBenchmark,
  type BenchmarkDataset,
  type BenchmarkTask,
  type BenchmarkV1,
  type EvalProcedure,
  type LoadTasksOptions,
  type Scorer,
  type TaskSecret,
  type ToolCall,
} from '@debug-gym/spec';
import { addedLines, cleanupPytestOutput, defaultCacheDir, distinctiveLine, fetchControls, patchToRewriteCalls } from '@debug-gym/plugin-kit';
import {
  DOCKER_ORG,
  HarnessError,
  LOG_PARSERS,
  TESTS_TIMEOUT,
  TEST_PYTEST,
  dockerImageRef,
  evalTestsReport,
  filterIrrelevantTests,
  parserNameForRepo,
  repoCommitFromImageName,
  resolutionStatus,
  testCommand,
  type LogParserName,
} from './harness.js';
import { SWESMITH_DATASET, fetchHfDataset, type HfDatasetRef } from './hf-dataset.js';
import { InstanceFormatError, parseInstance, type SwesmithInstance } from './instance.js';
import { meta } from './meta.js';
import { reversePatch } from './reverse-patch.js';
import { Selection, parseSelectors } from './select.js';
import { streamRows } from './stream-rows.js';

/** Benchmark-specific `loadTasks` options (`benchmark_options` in a config, `-p benchmark_options.x=y`). */
export interface SwesmithOptions {
  /** A Hub dataset in SWE-smith's format (default `SWE-bench/SWE-smith`). Ignored with `dataPath`. */
  dataset?: string;
  /** Its revision (default: the original's pin for SWE-bench/SWE-smith, else `main`). */
  revision?: string;
  /** Its split (default `train`). */
  split?: string;
  /** Where the images are (default `jyangballin`, Docker Hub, as SWE-smith's download_images pulls them). */
  namespace?: string;
  /**
   * A FAIL_TO_PASS test absent from the test log: `fail` (default, the original debug-gym's rule) or
   * `pass` (SWE-smith's harness: "assume silent success").
   */
  missingFailToPass?: 'pass' | 'fail';
  /** Seconds one test run may take (default 120, SWE-smith's TIMEOUT). */
  runTimeout?: number;
}

/** The conda env `testbed` of SWE-smith's images first on PATH (what `conda activate testbed` does). */
export const TESTBED_PATH = '/opt/miniconda3/envs/testbed/bin:/opt/miniconda3/condabin:/opt/miniconda3/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const BENCHMARK = 'swesmith';
const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
/**
 * git for the setup and the evaluation. `safe.directory=*`: on a sandbox whose working copy belongs
 * to another uid (bubblewrap as root, an image's /testbed), git refuses "dubious ownership" otherwise.
 */
const GIT = "git -c safe.directory='*' -c user.name=debug-gym -c user.email=debug-gym@localhost -c commit.gpgsign=false -c core.hooksPath=/dev/null";

/** How one instance is run: command, parser, files to restore, image. */
export interface InstancePlan {
  /** The harness's test command with its directives (`get_test_command`). */
  testCommand: string;
  directives: string[];
  /** The repository MAP_REPO_TO_SPECS names (from the image name), else the instance's `repo`. */
  repo: string;
  parser: LogParserName;
  /** Docker image reference, for image instances. */
  image?: string;
}

/**
 * `get_test_command` and the parser for an instance, with the original debug-gym's per-repository
 * changes (mido's paths, pydantic's `$HOME`, autograd without xdist and with the pytest parser).
 * A local repository (`repo_path`) takes `test_cmd` (default SWE-smith's TEST_PYTEST) and `log_parser`.
 */
export function instancePlan(instance: SwesmithInstance, options: Pick<SwesmithOptions, 'namespace'> = {}): InstancePlan {
  let repo = instance.repo;
  let testCmd = instance.test_cmd;
  if (instance.image_name && !instance.repo_path) {
    const found = repoCommitFromImageName(instance.image_name);
    repo = found.repo;
    testCmd ??= found.spec.test_cmd;
  } else if (instance.image_name) {
    try {
      const found = repoCommitFromImageName(instance.image_name);
      repo = found.repo;
      testCmd ??= found.spec.test_cmd;
    } catch (error) {
      if (!(error instanceof HarnessError)) throw error;
    }
  }
  testCmd ??= TEST_PYTEST;
  let parser: LogParserName = instance.log_parser ?? parserNameForRepo(repo);
  let { command, directives } = testCommand({ FAIL_TO_PASS: instance.FAIL_TO_PASS, testCmd, repo });
  const name = repo.split('/')[1] ?? repo;
  if (name === 'mido') {
    command = command.replace('/dev/null', '/dev').replaceAll('../dev/', './');
    directives = directives.map((directive) => directive.replaceAll('../dev/', ''));
  } else if (name === 'pydantic') command = command.replaceAll('/root/', '$HOME/');
  else if (name === 'autograd') {
    command = command.replace('--verbose', '-n 0 --verbose');
    parser = 'pytest';
  }
  return { testCommand: command, directives, repo, parser, ...(instance.image_name && !instance.repo_path ? { image: dockerImageRef(instance.image_name, options.namespace ?? DOCKER_ORG) } : {}) };
}

/** The test ids after the original's mido rewrite (`../dev/` paths do not exist in the image). */
function gradedTests(instance: SwesmithInstance, plan: InstancePlan): { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] } {
  const fix = (tests: string[]): string[] => (plan.repo.endsWith('/mido') ? tests.map((test) => test.replaceAll('../dev/', '')) : tests);
  return { FAIL_TO_PASS: fix(instance.FAIL_TO_PASS), PASS_TO_PASS: fix(instance.PASS_TO_PASS) };
}

/** The files a test id names (`tests/test_x.py::T::t` → `tests/test_x.py`), for restoring them before a run. */
function testFiles(tests: readonly string[]): string[] {
  return [...new Set(tests.filter((test) => test.includes('::')).map((test) => test.split('::', 1)[0] as string))].filter((file) => file.endsWith('.py'));
}

/**
 * Applies the bug at reset, then makes it the repository's only commit: SWE-smith's mirror repositories
 * have one commit, and a second commit holding the bug would hand the agent the fix (`git show`).
 * Untracked files of the image stay untracked (`git add -A` honours .gitignore).
 */
export function applyBugCommands(instance: Pick<SwesmithInstance, 'patch' | 'instance_id'>): string[] {
  let delimiter = 'DEBUG_GYM_BUG_PATCH';
  while (instance.patch.includes(delimiter)) delimiter += '_';
  const patch = instance.patch.endsWith('\n') ? instance.patch : `${instance.patch}\n`;
  return [
    // The agent's own git commands (git diff, git status) need the same trust, from its global config.
    `git config --global --get-all safe.directory 2>/dev/null | grep -qx '[*]' || git config --global --add safe.directory '*' 2>/dev/null || true`,
    `${GIT} apply --whitespace=nowarn - <<'${delimiter}'\n${patch}${delimiter}`,
    `rm -rf .git && ${GIT} init -q && ${GIT} add -A && ${GIT} commit -qm ${quote(`SWE-smith task ${instance.instance_id}`)} --no-verify`,
  ];
}

/** One evaluation, as the original's `eval`: the test files put back as committed, then the test command. */
export function swesmithEvaluation(instance: SwesmithInstance, plan: InstancePlan): EvalProcedure {
  const files = [...new Set([...plan.directives, ...testFiles([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS])])];
  const restore = files.length > 0 ? `${GIT} ls-files -z -- ${files.map(quote).join(' ')} | xargs -0 -r ${GIT} checkout HEAD --` : null;
  return async ({ terminal, entrypoint, timeoutMs }) => {
    const started = Date.now();
    if (restore) {
      const restored = await terminal.run(restore, { timeoutMs: 60_000 });
      if (restored.exitCode !== 0) return { ...restored, exitCode: restored.exitCode === 0 ? 1 : restored.exitCode, output: `Could not restore the test files before the run:\n${restored.output}`, durationMs: Date.now() - started };
    }
    const run = await terminal.run(entrypoint, { timeoutMs });
    return { ...run, durationMs: Date.now() - started };
  };
}

/**
 * SWE-smith's grading as an env scorer (`get_eval_report`): the log read by the repository's parser;
 * FAIL_TO_PASS and PASS_TO_PASS kept to the command's test files (`filter_irrelevant_tests`); a test
 * passes when PASSED or XFAIL, fails when FAILED or ERROR; a PASS_TO_PASS test absent from the log
 * passes (both SWE-smith and the original), a FAIL_TO_PASS one fails unless `missingFailToPass: 'pass'`.
 * Resolved = RESOLVED_FULL. Score = the FAIL_TO_PASS tests that pass while no PASS_TO_PASS test fails
 * (else 0), max = FAIL_TO_PASS count, as the original's `calculate_score`.
 */
export function swesmithScorer(instance: SwesmithInstance, plan: InstancePlan, options: Pick<SwesmithOptions, 'missingFailToPass'> = {}): Scorer {
  const parse = LOG_PARSERS[plan.parser];
  const tests = gradedTests(instance, plan);
  const gold = { FAIL_TO_PASS: filterIrrelevantTests(tests.FAIL_TO_PASS, plan.directives), PASS_TO_PASS: filterIrrelevantTests(tests.PASS_TO_PASS, plan.directives) };
  const maxScore = Math.max(tests.FAIL_TO_PASS.length, 1);
  return (run) => {
    const output = cleanupPytestOutput(run.output);
    if (run.timedOut) {
      const text = `Command timed out after ${Math.round(run.timeoutMs / 1000)} seconds${output.trim() ? `\nPartial output:\n${output}` : ''}`;
      return { output: text, score: 0, maxScore, success: false, details: { status: 'RESOLVED_NO', reason: TESTS_TIMEOUT } };
    }
    const map = parse(run.output);
    const report = evalTestsReport(map, gold, { missingFailToPass: options.missingFailToPass ?? 'fail' });
    const status = resolutionStatus(report);
    const score = report.PASS_TO_PASS.failure.length === 0 ? Math.min(report.FAIL_TO_PASS.success.length, maxScore) : 0;
    return { output, score, maxScore, success: status === 'RESOLVED_FULL', details: { status, tests_status: report, parsedTests: Object.keys(map).length } };
  };
}

const DEFAULT_INSTRUCTIONS = 'Some tests of this repository fail because of a bug in its code. Find the bug and fix it so that the tests pass; do not change the tests.';

/** The task of one instance. `emptyDir` is what is copied into /testbed when the repository is in the image. */
export function instanceTask(instance: SwesmithInstance, emptyDir: string, options: SwesmithOptions = {}): BenchmarkTask {
  const plan = instancePlan(instance, options);
  const entrypoint = plan.testCommand.replace('--tb=no', '--tb=short');
  const local = instance.repo_path !== undefined;
  // On a local repository, `python -m pytest` runs the terminal's interpreter (a bare `pytest` may be another one).
  const localize = (command: string): string => (local ? command.replace(/^pytest(?=\s|$)/, 'python -m pytest') : command);
  const task: BenchmarkTask = {
    id: instance.instance_id,
    benchmark: BENCHMARK,
    path: instance.repo_path ?? emptyDir,
    instructions: instance.problem_statement.trim() ? instance.problem_statement : DEFAULT_INSTRUCTIONS,
    entrypoint: localize(entrypoint),
    debugEntrypoint: localize(plan.testCommand.replace('pytest', 'pytest -sq')),
    ignorePatterns: ['.git/'],
    setupCommands: applyBugCommands(instance),
    runTimeout: options.runTimeout ?? 120,
    scorer: swesmithScorer(instance, plan, options),
    maxScore: Math.max(instance.FAIL_TO_PASS.length, 1),
    evaluation: swesmithEvaluation(instance, plan),
    goldPatch: reversePatch(instance.patch),
    metadata: {
      repo: plan.repo,
      ...(instance.image_name ? { image_name: instance.image_name } : {}),
      ...(instance.base_commit ? { base_commit: instance.base_commit } : {}),
      ...(instance.created_at ? { created_at: instance.created_at } : {}),
      ...(instance.repo_path ? { repo_path: instance.repo_path } : {}),
      test_command: plan.testCommand,
      log_parser: plan.parser,
      FAIL_TO_PASS: instance.FAIL_TO_PASS,
      PASS_TO_PASS_count: instance.PASS_TO_PASS.length,
    },
  };
  if (plan.image) {
    task.docker = {
      image: plan.image,
      workdir: '/testbed',
      python: 'python',
      env: { PATH: TESTBED_PATH, CONDA_DEFAULT_ENV: 'testbed', CONDA_PREFIX: '/opt/miniconda3/envs/testbed' },
      required: true,
    };
  }
  instances.set(task, instance);
  return task;
}

const instances = new WeakMap<BenchmarkTask, SwesmithInstance>();

/** The instance a task was made from (for tools that need the raw fields). */
export function taskInstance(task: BenchmarkTask): SwesmithInstance | undefined {
  return instances.get(task);
}

async function emptyWorkdir(cacheDir: string): Promise<string> {
  const dir = join(cacheDir, BENCHMARK, 'empty-workdir');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

interface Source {
  files: string[];
  source: string;
  fix: string;
}

async function resolveSource(options: LoadTasksOptions, extra: SwesmithOptions, cacheDir: string): Promise<Source> {
  if (options.dataPath) {
    return { files: [options.dataPath], source: options.dataPath, fix: `repair ${options.dataPath} (SWE-smith instances: JSONL, a JSON list or Parquet), or drop --data-path to download ${SWESMITH_DATASET.repo}` };
  }
  const dataset: HfDatasetRef =
    extra.dataset && extra.dataset !== SWESMITH_DATASET.repo
      ? { repo: extra.dataset, revision: extra.revision ?? 'main', split: extra.split ?? 'train' }
      : { ...SWESMITH_DATASET, ...(extra.revision ? { revision: extra.revision } : {}), ...(extra.split ? { split: extra.split } : {}) };
  const fetched = await fetchHfDataset({ benchmark: BENCHMARK, cacheDir, dataset, ...fetchControls(options) });
  return { files: fetched.files, source: fetched.source, fix: `delete ${dirname(fetched.files[0] as string)} and run the command again to download it afresh, or pass a local copy with --data-path` };
}

/** Loading statistics, beside the tasks. */
export interface StreamStats {
  rows: number;
  warnings: string[];
  /** Reading stopped once every requested id was found (the rest of the file was not read). */
  stoppedEarly: boolean;
}

/**
 * The selected instances' tasks, streamed from the dataset file(s): a task is yielded as soon as its
 * row is read when the selection is `all`/a pattern (time to first task ≈ one row), and memory holds
 * the rows read so far only for the tasks kept. `loadTasks` collects this.
 */
export async function* streamTasks(options: LoadTasksOptions = {}, stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false }): AsyncGenerator<BenchmarkTask> {
  const extra = (options.options ?? {}) as SwesmithOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const source = await resolveSource(options, extra, cacheDir);
  const emptyDir = await emptyWorkdir(cacheDir);
  const selectors = parseSelectors(BENCHMARK, options.tasks);
  // One pattern (all, a split, repo:, re:) selects in file order: each task can be handed on as it is read.
  const streaming = selectors.length === 1 && selectors[0]?.kind !== 'id';
  const selection = new Selection<BenchmarkTask>(BENCHMARK, selectors, undefined, !streaming);
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
      const id = typeof raw?.instance_id === 'string' ? raw.instance_id : null;
      const problem = (error: Error): void => {
        const where = `${item.where}${id ? ` (${id})` : ''}`;
        if (id && options.tasks?.includes(id)) throw new BenchmarkDataError(BENCHMARK, `instance ${id} is broken: ${where}: ${error.message}`, { file, fix: source.fix });
        stats.warnings.push(`${file}: ${where}: ${error.message}; the instance is left out. Fix: ${source.fix}`);
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
        // Only a selected row is checked and turned into a task.
        task = selection.offer({ id, repos: rowRepos(raw as Record<string, unknown>, id) }, () => instanceTask(parseInstance(raw, dirname(file)), emptyDir, extra));
      } catch (error) {
        if (!(error instanceof InstanceFormatError) && !(error instanceof HarnessError)) throw error;
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

/** The repositories a row answers to for `repo:` (lowercase): the image name's, the `repo` field, the id's prefix. */
function rowRepos(row: Record<string, unknown>, id: string): string[] {
  const repos = [typeof row.repo === 'string' ? row.repo : '', (id.split('.')[0] ?? '').replaceAll('__', '/')];
  if (typeof row.image_name === 'string') {
    try {
      repos.push(repoCommitFromImageName(row.image_name).repo);
    } catch {
      // An unknown image is reported when the row is selected.
    }
  }
  return repos.map((repo) => repo.toLowerCase()).filter(Boolean);
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const stats: StreamStats = { rows: 0, warnings: [], stoppedEarly: false };
  const tasks: BenchmarkTask[] = [];
  for await (const task of streamTasks(options, stats)) tasks.push(task);
  const extra = (options.options ?? {}) as SwesmithOptions;
  const source = options.dataPath ?? `${extra.dataset ?? SWESMITH_DATASET.repo}${extra.dataset && extra.dataset !== SWESMITH_DATASET.repo ? '' : `@${(extra.revision ?? SWESMITH_DATASET.revision).slice(0, 12)}`}`;
  return { benchmark: BENCHMARK, source, tasks, complete: stats.warnings.length === 0, warnings: stats.warnings };
}

/** The reference fix (the reverse of the bug patch) as `rewrite` calls. */
export async function swesmithSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  return task.goldPatch ? patchToRewriteCalls(task.goldPatch) : null;
}

/** What the agent must not read: the fix (a line the bug removed). It never enters the sandbox: the history is one commit. */
export async function swesmithSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const instance = instances.get(task);
  if (!instance || !task.goldPatch) return [];
  const context = instance.patch
    .split('\n')
    .filter((line) => line.startsWith(' '))
    .map((line) => line.slice(1))
    .join('\n');
  const marker = distinctiveLine(addedLines(task.goldPatch), [addedLines(instance.patch), context]);
  return marker ? [{ label: 'reference fix (reverse of the bug patch)', marker, promise: 'sandbox' }] : [];
}

/**
 * SWE-smith: synthesized bugs over ~128 Python repositories. Each instance runs in its repository's
 * image (or a local folder), the bug applied at reset; graded by SWE-smith's harness rules.
 */
export const swesmith: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: BENCHMARK,
  description: "SWE-smith's synthesized bugs in their repositories' images (or local folders); resolved when every FAIL_TO_PASS and PASS_TO_PASS test passes, as SWE-smith's harness grades.",
  defaultTools: ['bash', 'view', 'rewrite', 'eval', 'submit'],
  loadTasks,
  solution: (task) => swesmithSolution(task),
  secrets: (task) => swesmithSecrets(task),
});
