import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BenchmarkDataError, type BenchmarkTask } from '@debug-gym/spec';
import { selectTasks } from '@debug-gym/plugin-kit';
import { MINI_NIGHTMARE_ENTRYPOINT, MINI_NIGHTMARE_INSTRUCTIONS, MINI_NIGHTMARE_TASKS, TASK_NOTES, requiredFiles } from './task-catalog.js';

const BENCHMARK = 'mini-nightmare';

export interface ReadTasksResult {
  tasks: BenchmarkTask[];
  warnings: string[];
  complete: boolean;
}

/** The task of one valid folder. */
export function buildTask(name: string, dir: string): BenchmarkTask {
  const notes = TASK_NOTES[name];
  return {
    id: name,
    benchmark: BENCHMARK,
    path: dir,
    instructions: MINI_NIGHTMARE_INSTRUCTIONS,
    entrypoint: MINI_NIGHTMARE_ENTRYPOINT,
    // The data's own `.debugreadonly` says the same; repeated here for copies that lack the file.
    readonlyPatterns: ['*test*.py'],
    runTimeout: 30,
    ...(notes?.needsNetwork ? { needsNetwork: true } : {}),
    ...(notes?.flaky ? { flaky: true } : {}),
    ...(notes ? { notes: [...notes.notes] } : {}),
    metadata: { filename: `${name}_code.py` },
  };
}

/** What is wrong with one task folder, or null. */
function problemOf(root: string, name: string): { file: string; problem: string } | null {
  const dir = join(root, name);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return { file: dir, problem: `the task folder '${name}' is missing` };
  for (const file of requiredFiles(name)) {
    const path = join(dir, file);
    if (!existsSync(path)) return { file: path, problem: `task '${name}' has no ${file}` };
  }
  return null;
}

/**
 * Read and check the 10 task folders under `root`. A broken or missing task is left out with a
 * warning (the dataset is then incomplete); a requested task that is broken, or no task at all, is an error.
 */
export function readTasks(root: string, options: { ids?: readonly string[] | undefined; fix: string }): ReadTasksResult {
  if (!existsSync(root)) {
    throw new BenchmarkDataError(BENCHMARK, 'the data folder does not exist', { file: root, fix: options.fix });
  }
  const tasks: BenchmarkTask[] = [];
  const warnings: string[] = [];
  const broken = new Map<string, { file: string; problem: string }>();
  for (const name of MINI_NIGHTMARE_TASKS) {
    const problem = problemOf(root, name);
    if (problem) {
      broken.set(name, problem);
      warnings.push(`${problem.problem} (${problem.file}): the task is left out, so this is not the full benchmark. Fix: ${options.fix}`);
    } else {
      tasks.push(buildTask(name, join(root, name)));
    }
  }
  for (const id of options.ids ?? []) {
    const problem = broken.get(id);
    if (problem) throw new BenchmarkDataError(BENCHMARK, problem.problem, { file: problem.file, fix: options.fix });
  }
  if (tasks.length === 0) {
    throw new BenchmarkDataError(BENCHMARK, `no task folder found (expected ${MINI_NIGHTMARE_TASKS.join(', ')})`, { file: root, fix: options.fix });
  }
  return { tasks: selectTasks(BENCHMARK, tasks, options.ids), warnings, complete: broken.size === 0 };
}
