import { UnknownTaskError, type LoadTasksOptions } from '@debug-gym/spec';

/** Keep the tasks named in `ids` (in that order); every unknown id is an error naming the known ones. */
export function selectTasks<T extends { id: string }>(benchmark: string, tasks: readonly T[], ids: readonly string[] | undefined): T[] {
  if (!ids || ids.length === 0) return [...tasks];
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const unknown = ids.filter((id) => !byId.has(id));
  if (unknown.length > 0) throw new UnknownTaskError(benchmark, unknown, [...byId.keys()]);
  return [...new Set(ids)].map((id) => byId.get(id) as T);
}

/** The parts of `LoadTasksOptions` a data fetcher needs (only those that are set). */
export type FetchControls = Pick<LoadTasksOptions, 'download' | 'onProgress' | 'signal'>;

/** `options` reduced to what a data fetcher needs (download, onProgress, signal), leaving out unset ones. */
export function fetchControls(options: LoadTasksOptions): FetchControls {
  return {
    ...(options.download === undefined ? {} : { download: options.download }),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  };
}
