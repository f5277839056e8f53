import type { RepoEnvOptions } from '../env/repo-env.js';
import type { BenchmarkTask } from '@debug-gym/spec';

/** The RepoEnv options of a task; add `terminal` (and `tools`) to build the env. */
export function taskEnvOptions(task: BenchmarkTask): Omit<RepoEnvOptions, 'terminal'> {
  const options: Omit<RepoEnvOptions, 'terminal'> = {
    path: task.path,
    entrypoint: task.entrypoint,
    instructions: task.instructions,
  };
  if (task.debugEntrypoint !== undefined) options.debugEntrypoint = task.debugEntrypoint;
  if (task.ignorePatterns) options.ignorePatterns = task.ignorePatterns;
  if (task.readonlyPatterns) options.readonlyPatterns = task.readonlyPatterns;
  if (task.setupCommands) options.setupCommands = task.setupCommands;
  if (task.runTimeout !== undefined) options.runTimeout = task.runTimeout;
  if (task.scorer) options.scorer = task.scorer;
  if (task.maxScore !== undefined) options.maxScore = task.maxScore;
  if (task.evaluation) options.evaluation = task.evaluation;
  if (task.goldPatch !== undefined) options.goldPatch = task.goldPatch;
  return options;
}
