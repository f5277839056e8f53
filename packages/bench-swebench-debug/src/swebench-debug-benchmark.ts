import { isAbsolute, resolve, dirname } from 'node:path';
import { existsSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
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
import { addedLines, cleanupPytestOutput, defaultCacheDir, distinctiveLine, fetchControls, patchToRewriteCalls, selectTasks } from '@debug-gym/plugin-kit';
import { InstanceFormatError, LOG_PARSERS, SWEBENCH_DATASETS, fetchDataset, instanceTask as swebenchTask, parseInstance, parserNameFor, readRows, type SwebenchInstance, type SwebenchOptions } from '@debug-gym/bench-swebench';
import { meta } from './meta.js';

const BENCHMARK = 'swebench-debug';
const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;
const GIT = "git -c safe.directory='*' -c user.name=debug-gym -c user.email='<>' -c commit.gpgsign=false -c core.hooksPath=/dev/null";

/** An instance, plus the extra field for a repository that is a local folder (not upstream). */
export type SwebenchDebugInstance = SwebenchInstance & { repo_path?: string };

/** The files a diff touches (`b/` side of each `diff --git`). */
function testPatchFiles(patch: string): string[] {
  return [...new Set([...patch.matchAll(/^diff --git a\/.* b\/(.*)$/gm)].map((match) => match[1] as string))];
}

/**
 * The original's `SWEBenchDebugEnv.setup_terminal`, after SWE-bench's: the test patch applied
 * (`git apply -`) and committed as `Applying test patch for <id>`. Upstream commits with `git commit
 * -am`, which leaves the files the patch creates untracked (and commits nothing when it only creates
 * files); here the patch's own files are added, so the commit holds exactly the test patch.
 */
export function applyTestPatchCommands(instance: Pick<SwebenchInstance, 'test_patch' | 'instance_id'>): string[] {
  let delimiter = 'DEBUG_GYM_TEST_PATCH';
  while (instance.test_patch.includes(delimiter)) delimiter += '_';
  const patch = instance.test_patch.endsWith('\n') ? instance.test_patch : `${instance.test_patch}\n`;
  return [
    `git config --global --get-all safe.directory 2>/dev/null | grep -qx '[*]' || git config --global --add safe.directory '*' 2>/dev/null || true`,
    `${GIT} apply - <<'${delimiter}'\n${patch}${delimiter}`,
    `${GIT} add -- ${testPatchFiles(instance.test_patch).map(quote).join(' ')} && ${GIT} commit -qm ${quote(`Applying test patch for ${instance.instance_id}`)}`,
  ];
}

/**
 * The original's `SWEBenchEnv.calculate_score` (which SWEBenchDebugEnv keeps) on the plain
 * entrypoint's output: the repository's SWE-bench parser; a FAIL_TO_PASS test counts when PASSED
 * or XFAIL, a missing one is ERROR ("do not assume silent success"); a PASS_TO_PASS test holds when
 * PASSED or XFAIL, a missing one is PASSED; score = the FAIL_TO_PASS count when every PASS_TO_PASS
 * test holds, else 0; max = the FAIL_TO_PASS count; resolved when score = max.
 */
export function swebenchDebugScorer(instance: Pick<SwebenchInstance, 'repo' | 'log_parser' | 'FAIL_TO_PASS' | 'PASS_TO_PASS'>): Scorer {
  const parse = LOG_PARSERS[parserNameFor(instance)];
  const maxScore = instance.FAIL_TO_PASS.length;
  return (run) => {
    const output = cleanupPytestOutput(run.output);
    if (run.timedOut) return { output: `Command timed out after ${Math.round(run.timeoutMs / 1000)} seconds${output.trim() ? `\nPartial output:\n${output}` : ''}`, score: 0, maxScore, success: false };
    const map = parse(run.output) as Record<string, string>;
    const passes = (status: string): boolean => status === 'PASSED' || status === 'XFAIL';
    const failToPass = instance.FAIL_TO_PASS.filter((test) => passes(map[test] ?? 'ERROR'));
    const brokenPassToPass = instance.PASS_TO_PASS.filter((test) => !passes(map[test] ?? 'PASSED'));
    const score = brokenPassToPass.length === 0 ? failToPass.length : 0;
    return {
      output,
      score,
      maxScore,
      success: maxScore > 0 && score === maxScore,
      details: { fail_to_pass_passing: failToPass.length, pass_to_pass_failing: brokenPassToPass, parsedTests: Object.keys(map).length },
    };
  };
}

/**
 * The original's `eval`: the entrypoint run as it is, in the working copy as the agent left it (the
 * committed tests included). An evaluation procedure rather than no procedure: core's guarded pytest
 * scoring would put the test files back as they are in the task's folder, without the test patch.
 */
export const plainEvaluation: EvalProcedure = async ({ terminal, entrypoint, timeoutMs }) => terminal.run(entrypoint, { timeoutMs });

/**
 * The task of one instance: bench-swebench's (image, entrypoint, environment), the test patch
 * applied and committed at reset, the plain entrypoint as the evaluation (the original's `eval`).
 */
export function instanceTask(instance: SwebenchDebugInstance, emptyDir: string, options: Pick<SwebenchOptions, 'arch' | 'namespace'> = {}): BenchmarkTask {
  const base = swebenchTask(instance, emptyDir, options);
  const local = instance.repo_path !== undefined;
  const task: BenchmarkTask = {
    ...base,
    evaluation: plainEvaluation,
    benchmark: BENCHMARK,
    path: instance.repo_path ?? base.path,
    // On a local repository, `python -m pytest` runs the terminal's interpreter.
    entrypoint: local ? base.entrypoint.replace(/^pytest(?=\s|$)/, 'python -m pytest') : base.entrypoint,
    setupCommands: [...(base.setupCommands ?? []), ...applyTestPatchCommands(instance)],
    scorer: swebenchDebugScorer(instance),
    maxScore: instance.FAIL_TO_PASS.length,
    metadata: { ...base.metadata, ...(local ? { repo_path: instance.repo_path } : {}) },
  };
  if (local) delete task.docker;
  instances.set(task, instance);
  return task;
}

const instances = new WeakMap<BenchmarkTask, SwebenchDebugInstance>();

/** The gold patch: never in the sandbox (the test patch is, by design). */
export async function swebenchDebugSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const instance = instances.get(task);
  if (!instance) return [];
  const marker = distinctiveLine(addedLines(instance.patch), [addedLines(instance.test_patch)]);
  return marker ? [{ label: 'gold patch', marker, promise: 'sandbox' }] : [];
}

async function emptyWorkdir(cacheDir: string): Promise<string> {
  const dir = join(cacheDir, BENCHMARK, 'empty-workdir');
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  return dir;
}

/** The same datasets as bench-swebench (`options.dataset`: `verified`, default, or `lite`), or `--data-path`. */
async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const extra = (options.options ?? {}) as SwebenchOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  let file: string;
  let fix: string;
  let source: string;
  if (options.dataPath) {
    file = options.dataPath;
    source = file;
    fix = `repair ${file} (SWE-bench instances: JSONL, a JSON list or Parquet), or drop --data-path to download the dataset`;
  } else {
    const name = extra.dataset ?? 'verified';
    const dataset = SWEBENCH_DATASETS[name];
    if (!dataset) throw new BenchmarkDataError(BENCHMARK, `unknown dataset '${String(name)}'`, { fix: `use one of: ${Object.keys(SWEBENCH_DATASETS).join(', ')}` });
    const fetched = await fetchDataset({ cacheDir, dataset, ...(extra.url ? { url: extra.url } : {}), ...(extra.sha256 ? { sha256: extra.sha256 } : {}), ...fetchControls(options) });
    file = fetched.path;
    source = fetched.url;
    fix = `delete ${file} and run the command again to download it afresh, or pass a local copy with --data-path`;
    if (!existsSync(file)) throw new BenchmarkDataError(BENCHMARK, 'the dataset is not in the cache and downloads are disabled', { file, fix: `allow the download, or download ${fetched.url} yourself and pass it with --data-path (JSON, JSONL or Parquet)` });
  }
  options.onProgress?.({ phase: 'read', message: `reading ${file}` });
  const { rows, unit, errors } = await readRows(file, BENCHMARK, fix);
  const warnings = errors.map((error) => `${file}: ${error}; the instance is left out. Fix: ${fix}`);
  const parsed: SwebenchDebugInstance[] = [];
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (row === undefined) return;
    try {
      const instance: SwebenchDebugInstance = parseInstance(row);
      if (seen.has(instance.instance_id)) throw new InstanceFormatError(`instance ${instance.instance_id} appears twice`);
      if (instance.FAIL_TO_PASS.length === 0) throw new InstanceFormatError('FAIL_TO_PASS is empty');
      seen.add(instance.instance_id);
      const repoPath = (row as { repo_path?: unknown }).repo_path;
      if (typeof repoPath === 'string' && repoPath) instance.repo_path = isAbsolute(repoPath) ? repoPath : resolve(dirname(file), repoPath);
      parsed.push(instance);
    } catch (error) {
      if (!(error instanceof InstanceFormatError)) throw error;
      const id = typeof (row as { instance_id?: unknown }).instance_id === 'string' ? (row as { instance_id: string }).instance_id : null;
      if (id && options.tasks?.includes(id)) throw new BenchmarkDataError(BENCHMARK, `instance ${id} is broken: ${unit} ${index + 1}: ${error.message}`, { file, fix });
      warnings.push(`${file}: ${unit} ${index + 1}${id ? ` (${id})` : ''}: ${error.message}; the instance is left out. Fix: ${fix}`);
    }
  });
  if (parsed.length === 0) throw new BenchmarkDataError(BENCHMARK, 'the file holds no usable instance', { file, fix });
  const emptyDir = await emptyWorkdir(cacheDir);
  const selected = selectTasks(BENCHMARK, parsed.map((instance) => ({ id: instance.instance_id, instance })), options.tasks?.filter((id) => id !== 'all'));
  return { benchmark: BENCHMARK, source, tasks: selected.map(({ instance }) => instanceTask(instance, emptyDir, extra)), complete: warnings.length === 0, warnings };
}

/** The gold patch as `rewrite` calls. */
export async function swebenchDebugSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  return task.goldPatch ? patchToRewriteCalls(task.goldPatch) : null;
}

/**
 * SWE-bench-debug (the original's `swe_bench_debug.py`): SWE-bench with the test patch applied and
 * committed at reset, so the agent can run and debug the failing tests; scored on the plain entrypoint.
 */
export const swebenchDebug: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: BENCHMARK,
  description: 'SWE-bench with the failing tests in the repository (the test patch committed at reset); scored on the plain test command, as the original scores it.',
  defaultTools: ['bash', 'view', 'rewrite', 'eval', 'pdb', 'submit'],
  loadTasks,
  solution: (task) => swebenchDebugSolution(task),
  secrets: (task) => swebenchDebugSecrets(task),
});
