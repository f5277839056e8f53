import { opendir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { EnvConfigError } from '@debug-gym/spec';

/** Files and folders a repository may hold before `reset` refuses to copy it. */
export const DEFAULT_MAX_REPOSITORY_ENTRIES = 200_000;

/**
 * Check, before any sandbox starts, that `path` is a repository worth copying: an existing
 * directory, not `/` or the home directory, with at most `maxEntries` entries. Returns it absolute.
 */
export async function checkRepositoryPath(path: string, maxEntries = DEFAULT_MAX_REPOSITORY_ENTRIES): Promise<string> {
  const absolute = resolve(path);
  if (absolute === '/') throw new EnvConfigError('Refusing to use `/` (the root of the file system) as the repository: pass the path of the repository to debug.');
  if (absolute === resolve(homedir())) throw new EnvConfigError(`Refusing to use your home directory \`${absolute}\` as the repository: pass the path of the repository to debug.`);
  const info = await stat(absolute).catch(() => null);
  if (!info) throw new EnvConfigError(`The repository path \`${path}\` does not exist: pass the path of an existing directory.`);
  if (!info.isDirectory()) throw new EnvConfigError(`The repository path \`${path}\` is not a directory: pass the folder that holds the repository.`);
  const counted = await countEntries(absolute, maxEntries + 1);
  if (counted > maxEntries) {
    throw new EnvConfigError(
      `The repository \`${path}\` holds more than ${maxEntries} files and folders, too many to copy into a sandbox: ` +
        'pass a smaller repository, or raise `maxRepositoryEntries`.',
    );
  }
  return absolute;
}

/** Entries below `root` (symlinks not followed), counting stops at `stopAt`. Iterative: no deep recursion. */
async function countEntries(root: string, stopAt: number): Promise<number> {
  let count = 0;
  const pending = [root];
  while (pending.length > 0) {
    const path = pending.pop() as string;
    const dir = await opendir(path).catch(() => null);
    if (!dir) continue;
    // Leaving the loop early closes the directory.
    for await (const entry of dir) {
      count += 1;
      if (count >= stopAt) return count;
      if (entry.isDirectory()) pending.push(join(path, entry.name));
    }
  }
  return count;
}
