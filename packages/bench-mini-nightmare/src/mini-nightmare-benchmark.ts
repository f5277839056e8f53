import { defineBenchmark, type BenchmarkDataset, type BenchmarkV1, type LoadTasksOptions } from '@debug-gym/spec';
import { defaultCacheDir, fetchControls } from '@debug-gym/plugin-kit';
import { cachePaths, fetchMiniNightmare } from './fetch-data.js';
import { readTasks } from './read-tasks.js';
import { miniNightmareSecrets, miniNightmareSolution } from './solutions.js';
import { MINI_NIGHTMARE_TASKS } from './task-catalog.js';
import { meta } from './meta.js';

/** Benchmark-specific `loadTasks` options (`options` field). */
export interface MiniNightmareOptions {
  /** Archive URL (a mirror, or `file://` for a local zip). Default MINI_NIGHTMARE_URL. */
  url?: string;
  /** Expected SHA-256 of the archive. */
  sha256?: string;
}

async function loadTasks(options: LoadTasksOptions = {}): Promise<BenchmarkDataset> {
  const extra = (options.options ?? {}) as MiniNightmareOptions;
  let root: string;
  let source: string;
  let fix: string;
  const warnings: string[] = [];
  if (options.dataPath) {
    root = options.dataPath;
    source = root;
    fix = `restore the file in ${root} (the data is the debug-gym repository's data/mini_nightmare/ folder), or drop --data-path to use the published archive`;
  } else {
    const cacheDir = options.cacheDir ?? defaultCacheDir();
    const fetched = await fetchMiniNightmare({
      cacheDir,
      ...(extra.url ? { url: extra.url } : {}),
      ...(extra.sha256 ? { sha256: extra.sha256 } : {}),
      ...fetchControls(options),
    });
    root = fetched.root;
    source = fetched.source;
    warnings.push(...fetched.warnings);
    const paths = cachePaths(cacheDir);
    fix = `delete ${paths.root} and ${paths.lock}, then run the command again to download the data afresh`;
  }
  options.onProgress?.({ phase: 'read', message: `reading ${root}` });
  const read = readTasks(root, { ids: options.tasks, fix });
  return {
    benchmark: 'mini-nightmare',
    source,
    tasks: read.tasks,
    complete: read.complete,
    warnings: [...warnings, ...read.warnings],
    expectedCount: MINI_NIGHTMARE_TASKS.length,
  };
}

/**
 * mini-nightmare: 10 hand-crafted buggy programs (`<task>_code.py` + `test.py`); success = every
 * collected test passes under `python -m pytest --tb=no -s test.py`.
 */
export const miniNightmare: BenchmarkV1 = defineBenchmark({
  specificationVersion: 'benchmark-v1',
  meta,
  name: 'mini-nightmare',
  description: '10 hand-crafted buggy Python programs (debug-gym 1.0 mini_nightmare); resolved when every test passes.',
  defaultTools: ['pdb', 'view', 'rewrite', 'listdir', 'eval'],
  loadTasks,
  solution: (task, options = {}) => miniNightmareSolution(task, options.solutionsDir),
  secrets: (task, options = {}) => miniNightmareSecrets(task, options.solutionsDir),
});
