import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineBenchmark, type BenchmarkDataset, type BenchmarkTask, type BenchmarkV1, type LoadTasksOptions, type TaskSecret, type ToolCall } from '@debug-gym/spec';
import { defaultCacheDir, distinctiveLine, fetchControls, selectTasks } from '@debug-gym/plugin-kit';
import { repositoryTexts } from './repository-texts.js';
import { checkoutDir, cloneExercism } from './clone-exercism.js';
import { aiderScorer } from './aider-scorer.js';
import { AIDER_ENTRYPOINT, AIDER_RUN_TIMEOUT, EXERCISM_COMMIT, EXERCISM_EXERCISES, REFACTORING_EXERCISES } from './exercise-catalog.js';
import { prepareWorkspaces } from './prepare-workspaces.js';
import { readExercises, type Exercise } from './read-exercises.js';
import { meta } from './meta.js';

/** Benchmark-specific `loadTasks` options (`options` field). */
export interface AiderOptions {
  /** Git URL of exercism/python (a mirror, or a local repository). */
  repoUrl?: string;
  /** Commit to check out. Default EXERCISM_COMMIT. */
  commit?: string;
  /**
   * Keep the refactoring exercises (`ledger`, `markdown`), whose untouched stubs already pass: the
   * original's 140 tasks, two of which reward a no-op. Default false (138 tasks).
   */
  includeRefactoring?: boolean;
}

/** The exercises folder of a `--data-path`: the folder itself, or `exercises/practice` of a checkout. */
export function exercisesRoot(dataPath: string): string {
  const nested = join(dataPath, 'exercises', 'practice');
  return existsSync(nested) ? nested : dataPath;
}

function toTask(exercise: Exercise, path: string): BenchmarkTask {
  return {
    id: exercise.id,
    benchmark: 'aider',
    path,
    instructions: exercise.instructions,
    entrypoint: AIDER_ENTRYPOINT,
    // What the original's `.debugignore` / `.debugreadonly` said (2025-09): hidden files hidden, tests read-only.
    ignorePatterns: ['.?*'],
    readonlyPatterns: ['*test*.py'],
    runTimeout: AIDER_RUN_TIMEOUT,
    scorer: aiderScorer,
    ...(exercise.skipsTests ? { notes: ['the test file skips some tests: they do not count toward the max score'] } : {}),
    metadata: {
      slug: exercise.slug,
      filename: exercise.solutionFiles[0],
      solutionFiles: exercise.solutionFiles,
      testFiles: exercise.testFiles,
      /** The exercise folder in the data (with `.meta/`), for the reference solution. */
      source: exercise.dir,
      exampleFile: exercise.exampleFile,
    },
  };
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const extra = (options.options ?? {}) as AiderOptions;
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  let root: string;
  let source: string;
  let fix: string;
  if (options.dataPath) {
    root = exercisesRoot(options.dataPath);
    source = root;
    fix = `restore the file in ${root} (exercism/python@${EXERCISM_COMMIT.slice(0, 12)}, exercises/practice/), or drop --data-path to clone it`;
  } else {
    const cloned = await cloneExercism({
      cacheDir,
      ...(extra.repoUrl ? { repoUrl: extra.repoUrl } : {}),
      ...(extra.commit ? { commit: extra.commit } : {}),
      ...fetchControls(options),
    });
    root = cloned.root;
    source = cloned.source;
    fix = `delete ${checkoutDir(cacheDir, extra.commit)} and run the command again to clone it afresh`;
  }
  options.onProgress?.({ phase: 'read', message: `reading ${root}` });
  const read = readExercises(root, { fix, ids: options.tasks });
  // Named in `tasks`, a refactoring exercise runs; otherwise it is left out unless asked for.
  const keepRefactoring = extra.includeRefactoring === true || (options.tasks?.length ?? 0) > 0;
  const dropped = keepRefactoring ? [] : read.exercises.filter((exercise) => REFACTORING_EXERCISES.includes(exercise.slug)).map((exercise) => exercise.id);
  const exercises = read.exercises.filter((exercise) => !dropped.includes(exercise.id));
  const selected = selectTasks('aider', exercises, options.tasks);
  const warnings = [...read.warnings];
  if (dropped.length > 0) {
    warnings.push(
      `left out ${dropped.join(' and ')}: refactoring exercises whose untouched stubs already pass every test (a no-op would score the maximum); ` +
        'benchmark_options: { includeRefactoring: true } keeps them (the original\'s 140 tasks)',
    );
  }
  options.onProgress?.({ phase: 'prepare', message: `preparing ${selected.length} workspaces` });
  const workspaces = await prepareWorkspaces(selected, cacheDir);
  return {
    benchmark: 'aider',
    source,
    tasks: selected.map((exercise) => toTask(exercise, workspaces.get(exercise.id) as string)),
    complete: read.complete,
    warnings,
    expectedCount: EXERCISM_EXERCISES.length - (keepRefactoring ? 0 : REFACTORING_EXERCISES.length),
  };
}

/** The reference solution (`.meta/example.py`) written over the stub, through `rewrite`. Null when the data has none. */
export async function aiderSolution(task: BenchmarkTask): Promise<ToolCall[] | null> {
  const meta = task.metadata ?? {};
  const source = meta.source;
  const example = meta.exampleFile;
  const solutionFiles = meta.solutionFiles;
  if (typeof source !== 'string' || typeof example !== 'string' || !Array.isArray(solutionFiles) || solutionFiles.length !== 1) return null;
  const code = await readFile(join(source, example), 'utf8');
  return [{ name: 'rewrite', arguments: { path: solutionFiles[0] as string, new_code: code } }];
}

/**
 * The reference solution never enters the sandbox: on bubblewrap and Docker not even bash or pdb can
 * read it. (The local terminal has no boundary: there the data folder is reachable by absolute path.)
 */
export async function aiderSecrets(task: BenchmarkTask): Promise<TaskSecret[]> {
  const { source, exampleFile } = task.metadata ?? {};
  if (typeof source !== 'string' || typeof exampleFile !== 'string') return [];
  const hostPath = join(source, exampleFile);
  const marker = distinctiveLine(await readFile(hostPath, 'utf8'), repositoryTexts(task.path));
  return marker ? [{ label: `reference solution ${exampleFile}`, marker, hostPath, promise: 'sandbox' }] : [];
}

/**
 * aider: the 140 Exercism Python practice exercises. The stub is editable, the tests read-only, the
 * reference solution never enters the sandbox; resolved when every test passes.
 */
export const aider: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: 'aider',
  description: "The 140 Exercism Python practice exercises of Aider's benchmark (exercism/python, pinned commit); resolved when every test passes.",
  defaultTools: ['bash', 'view', 'rewrite', 'eval'],
  loadTasks,
  solution: (task) => aiderSolution(task),
  secrets: (task) => aiderSecrets(task),
});
