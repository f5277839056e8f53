import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BenchmarkDataError, type LoadProgress } from '@debug-gym/spec';
import { EXERCISM_COMMIT, EXERCISM_REPO_URL } from './exercise-catalog.js';

const run = promisify(execFile);
const BENCHMARK = 'aider';
const MARKER = '.debug-gym-checkout';

export interface CloneOptions {
  cacheDir: string;
  repoUrl?: string;
  commit?: string;
  /** False: only an existing checkout in the cache is used. */
  download?: boolean;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
}

export interface ClonedData {
  /** The `exercises/practice` folder. */
  root: string;
  /** The checkout. */
  checkout: string;
  source: string;
}

export function checkoutDir(cacheDir: string, commit: string = EXERCISM_COMMIT): string {
  return join(cacheDir, `exercism-python-${commit.slice(0, 12)}`);
}

async function git(args: string[], cwd: string, signal?: AbortSignal): Promise<void> {
  await run('git', args, {
    cwd,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ADVICE: '0' },
    maxBuffer: 16 * 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
}

function gitMessage(error: unknown): string {
  const failure = error as { stderr?: string; message?: string; code?: unknown };
  if (failure.code === 'ENOENT') return 'git is not installed';
  return (failure.stderr || failure.message || String(error)).trim().split('\n').slice(-3).join(' ');
}

/**
 * A checkout of exercism/python at the pinned commit in the cache: `git clone --depth 1`, then
 * the commit (fetched on its own when the default branch has moved past it). Reused while its
 * marker names the same commit.
 */
export async function cloneExercism(options: CloneOptions): Promise<ClonedData> {
  const url = options.repoUrl ?? EXERCISM_REPO_URL;
  const commit = options.commit ?? EXERCISM_COMMIT;
  const target = checkoutDir(options.cacheDir, commit);
  const source = `${url}@${commit}`;
  const root = join(target, 'exercises', 'practice');
  const marker = await readFile(join(target, MARKER), 'utf8').catch(() => '');
  if (marker.trim() === commit && existsSync(root)) return { root, checkout: target, source: `${source} (cached in ${target})` };
  if (options.download === false) {
    throw new BenchmarkDataError(BENCHMARK, 'the exercises are not in the cache and downloads are disabled', {
      file: target,
      fix: `allow the download, or clone ${url}, check out ${commit} and pass its exercises/practice folder with --data-path`,
    });
  }
  const fix = `check that git is installed and ${url} is reachable, or clone it yourself, check out ${commit} and pass exercises/practice with --data-path`;
  await rm(target, { recursive: true, force: true });
  const scratch = await mkdtemp(`${target}.clone-`);
  try {
    options.onProgress?.({ phase: 'clone', message: `git clone --depth 1 ${url}` });
    try {
      await git(['clone', '--quiet', '--depth', '1', url, scratch], options.cacheDir, options.signal);
    } catch (error) {
      throw new BenchmarkDataError(BENCHMARK, `git clone ${url} failed: ${gitMessage(error)}`, { fix, cause: error });
    }
    try {
      await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', commit], scratch, options.signal);
    } catch {
      options.onProgress?.({ phase: 'clone', message: `git fetch --depth 1 origin ${commit}` });
      try {
        await git(['fetch', '--quiet', '--depth', '1', 'origin', commit], scratch, options.signal);
        await git(['-c', 'advice.detachedHead=false', 'checkout', '--quiet', commit], scratch, options.signal);
      } catch (error) {
        throw new BenchmarkDataError(BENCHMARK, `commit ${commit} could not be checked out from ${url}: ${gitMessage(error)}`, { fix, cause: error });
      }
    }
    if (!existsSync(join(scratch, 'exercises', 'practice'))) {
      throw new BenchmarkDataError(BENCHMARK, `${source} has no exercises/practice folder`, { file: join(target, 'exercises', 'practice'), fix });
    }
    await writeFile(join(scratch, MARKER), `${commit}\n`);
    await rename(scratch, target);
  } catch (error) {
    await rm(scratch, { recursive: true, force: true });
    throw error;
  }
  return { root, checkout: target, source };
}
