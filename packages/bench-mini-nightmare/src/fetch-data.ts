import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BenchmarkDataError, type LoadProgress } from '@debug-gym/spec';
import { downloadFile } from '@debug-gym/plugin-kit';
import { extractZip } from './extract-zip.js';
import { MINI_NIGHTMARE_TASKS } from './task-catalog.js';

/** The original's published data archive (debug-gym release 1.0.0). */
export const MINI_NIGHTMARE_URL = 'https://github.com/microsoft/debug-gym/releases/download/1.0.0/mini_nightmare.zip';

/**
 * SHA-256 of the archive at MINI_NIGHTMARE_URL. Not pinned yet: it could not be downloaded where this
 * package was written. Until it is, the first download records its checksum in
 * `<cache>/mini_nightmare.lock.json` (trust on first use) and later downloads must match it. To pin
 * it: download the archive, check its content, and put `sha256sum mini_nightmare.zip` here.
 */
export const MINI_NIGHTMARE_SHA256: string | null = null;

const BENCHMARK = 'mini-nightmare';

export interface DataLock {
  url: string;
  sha256: string;
  /** The checksum came from MINI_NIGHTMARE_SHA256 / an explicit option (not trust on first use). */
  pinned: boolean;
  downloadedAt: string;
}

export interface FetchOptions {
  cacheDir: string;
  url?: string;
  sha256?: string | null;
  download?: boolean;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
}

export interface FetchedData {
  root: string;
  source: string;
  warnings: string[];
}

export function cachePaths(cacheDir: string): { root: string; archive: string; lock: string } {
  return {
    root: join(cacheDir, 'mini_nightmare'),
    archive: join(cacheDir, 'mini_nightmare.zip'),
    lock: join(cacheDir, 'mini_nightmare.lock.json'),
  };
}

async function readLock(path: string): Promise<DataLock | null> {
  try {
    const lock = JSON.parse(await readFile(path, 'utf8')) as Partial<DataLock>;
    return typeof lock.url === 'string' && typeof lock.sha256 === 'string' ? (lock as DataLock) : null;
  } catch {
    return null;
  }
}

/** The folder of the extracted archive that holds the task folders (the archive may wrap them in one folder). */
async function locateRoot(extracted: string, archive: string): Promise<string> {
  const hasTasks = (dir: string): boolean => MINI_NIGHTMARE_TASKS.some((task) => existsSync(join(dir, task)));
  if (hasTasks(extracted)) return extracted;
  const folders = (await readdir(extracted, { withFileTypes: true })).filter((entry) => entry.isDirectory() && entry.name !== '__MACOSX');
  for (const folder of folders) {
    const candidate = join(extracted, folder.name);
    if (hasTasks(candidate)) return candidate;
  }
  throw new BenchmarkDataError(BENCHMARK, `the archive holds none of the task folders (${MINI_NIGHTMARE_TASKS.join(', ')})`, {
    file: archive,
    fix: 'check the archive URL, delete the file and run the command again, or pass the data folder with --data-path',
  });
}

/**
 * The data folder in the cache, downloading and extracting the archive the first time (and again
 * when the URL changed). The archive's checksum is verified (pinned, or recorded on first use).
 */
export async function fetchMiniNightmare(options: FetchOptions): Promise<FetchedData> {
  const url = options.url ?? MINI_NIGHTMARE_URL;
  const paths = cachePaths(options.cacheDir);
  const lock = await readLock(paths.lock);
  if (lock && lock.url === url && existsSync(paths.root)) return { root: paths.root, source: `${url} (cached in ${paths.root})`, warnings: [] };
  if (options.download === false) {
    throw new BenchmarkDataError(BENCHMARK, 'the data is not in the cache and downloads are disabled', {
      file: paths.root,
      fix: `allow the download, or download ${url}, extract it and pass the folder with --data-path`,
    });
  }
  const pinned = options.sha256 ?? (url === MINI_NIGHTMARE_URL ? MINI_NIGHTMARE_SHA256 : null);
  const expected = pinned ?? (lock && lock.url === url ? lock.sha256 : null);
  options.onProgress?.({ phase: 'download', message: `downloading ${url}` });
  const sha256 = await downloadFile(url, paths.archive, {
    benchmark: BENCHMARK,
    ...(expected ? { sha256: expected } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  options.onProgress?.({ phase: 'extract', message: `extracting ${paths.archive}` });
  const scratch = await mkdtemp(`${paths.root}.extract-`);
  try {
    await extractZip(await readFile(paths.archive), scratch, BENCHMARK, paths.archive);
    const found = await locateRoot(scratch, paths.archive);
    await rm(paths.root, { recursive: true, force: true });
    await rename(found, paths.root);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  const record: DataLock = { url, sha256, pinned: pinned !== null, downloadedAt: new Date().toISOString() };
  await writeFile(paths.lock, `${JSON.stringify(record, null, 2)}\n`);
  const warnings =
    expected === null
      ? [
          `The checksum of ${url} is not pinned in @debug-gym/bench-mini-nightmare: recorded SHA-256 ${sha256} in ${paths.lock}; later downloads must match it.`,
        ]
      : [];
  return { root: paths.root, source: url, warnings };
}
