import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BenchmarkDataError } from '@debug-gym/spec';
import { EXERCISM_COMMIT, EXERCISM_EXERCISES, taskIdOf } from './exercise-catalog.js';

const BENCHMARK = 'aider';

/** One exercise folder, checked. Paths are relative to `dir` unless absolute. */
export interface Exercise {
  /** Folder name (`two-fer`). */
  slug: string;
  /** Task id (`two_fer`). */
  id: string;
  /** The exercise folder in the data (with `.meta/` and `.docs/`). */
  dir: string;
  /** Files the agent edits (`two_fer.py`). */
  solutionFiles: string[];
  /** Test files (`two_fer_test.py`). */
  testFiles: string[];
  /** The reference solution (`.meta/example.py`), or null when the data has none. */
  exampleFile: string | null;
  /** A test file skips tests (`@unittest.skip`, `pytest.mark.skip`). */
  skipsTests: boolean;
  /** `.docs/introduction.md` + `instructions.md` + `instructions.append.md`, concatenated as the original does. */
  instructions: string;
}

export interface ReadExercisesResult {
  exercises: Exercise[];
  warnings: string[];
  /** Every exercise of the pinned benchmark is present and usable. */
  complete: boolean;
  /** Exercises of the pinned list that are missing or broken. */
  missing: string[];
}

interface ExerciseConfig {
  files?: { solution?: unknown; test?: unknown; example?: unknown };
}

function stringList(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string') ? (value as string[]) : fallback;
}

function readConfig(dir: string): { config: ExerciseConfig; problem: string | null } {
  const path = join(dir, '.meta', 'config.json');
  if (!existsSync(path)) return { config: {}, problem: null };
  try {
    return { config: JSON.parse(readFileSync(path, 'utf8')) as ExerciseConfig, problem: null };
  } catch (error) {
    return { config: {}, problem: `${path} is not valid JSON (${(error as Error).message}); the default file names are used` };
  }
}

const read = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');

/** Check one exercise folder: the Exercise, or the first missing file. */
export function readExercise(dir: string, slug: string): { exercise: Exercise | null; problem: { file: string; text: string } | null; note: string | null } {
  const id = taskIdOf(slug);
  const { config, problem: note } = readConfig(dir);
  const solutionFiles = stringList(config.files?.solution, [`${id}.py`]);
  const testFiles = stringList(config.files?.test, [`${id}_test.py`]);
  const [example] = stringList(config.files?.example, ['.meta/example.py']);
  const required = [...solutionFiles.map((file) => ['stub', file]), ...testFiles.map((file) => ['test file', file]), ['instructions', '.docs/instructions.md']];
  for (const [what, file] of required) {
    const path = join(dir, file as string);
    if (!existsSync(path)) return { exercise: null, problem: { file: path, text: `exercise '${slug}' has no ${what} ${file}` }, note };
  }
  const docs = join(dir, '.docs');
  const instructions = read(join(docs, 'introduction.md')) + read(join(docs, 'instructions.md')) + read(join(docs, 'instructions.append.md'));
  const exampleFile = example && existsSync(join(dir, example)) ? example : null;
  const skipsTests = testFiles.some((file) => /@(unittest\.skip|pytest\.mark\.skip)\b/.test(read(join(dir, file))));
  return { exercise: { slug, id, dir, solutionFiles, testFiles, exampleFile, skipsTests, instructions }, problem: null, note };
}

/**
 * Read every exercise folder under `root` (`exercises/practice`). Broken exercises are left out
 * with a warning naming the file; missing ones (of the pinned list) are named too, and the dataset
 * is then incomplete. A requested exercise that is broken, or no exercise at all, is an error.
 */
export function readExercises(root: string, options: { fix: string; ids?: readonly string[] | undefined }): ReadExercisesResult {
  if (!existsSync(root)) throw new BenchmarkDataError(BENCHMARK, 'the exercises folder does not exist', { file: root, fix: options.fix });
  const slugs = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
    .map((entry) => entry.name)
    .sort();
  const exercises: Exercise[] = [];
  const warnings: string[] = [];
  const broken = new Map<string, { file: string; text: string }>();
  for (const slug of slugs) {
    const { exercise, problem, note } = readExercise(join(root, slug), slug);
    if (note) warnings.push(note);
    if (exercise) exercises.push(exercise);
    else if (problem) {
      broken.set(taskIdOf(slug), problem);
      warnings.push(`${problem.text} (${problem.file}): the exercise is left out, so this is not the full benchmark. Fix: ${options.fix}`);
    }
  }
  const present = new Set(slugs);
  const absent = EXERCISM_EXERCISES.filter((slug) => !present.has(slug));
  if (absent.length > 0) {
    const shown = absent.length > 10 ? `${absent.slice(0, 10).join(', ')}, ... (${absent.length} in all)` : absent.join(', ');
    warnings.push(
      `${absent.length} of the ${EXERCISM_EXERCISES.length} exercises of exercism/python@${EXERCISM_COMMIT.slice(0, 12)} are missing from ${root}: ${shown}. This is a partial dataset: its score is not the benchmark's. Fix: ${options.fix}`,
    );
  }
  const pinned = new Set(EXERCISM_EXERCISES);
  const extra = slugs.filter((slug) => !pinned.has(slug));
  if (extra.length > 0) warnings.push(`${extra.length} exercise(s) are not part of the pinned benchmark and are included: ${extra.join(', ')}.`);
  for (const id of options.ids ?? []) {
    const problem = broken.get(id);
    if (problem) throw new BenchmarkDataError(BENCHMARK, problem.text, { file: problem.file, fix: options.fix });
  }
  if (exercises.length === 0) throw new BenchmarkDataError(BENCHMARK, 'no exercise folder found', { file: root, fix: options.fix });
  const missing = [...absent, ...[...broken.values()].map((problem) => problem.file)];
  return { exercises, warnings, complete: absent.length === 0 && broken.size === 0, missing };
}
