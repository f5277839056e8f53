import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { BenchmarkDataError, type LoadProgress } from '@debug-gym/spec';

/** `$DEBUG_GYM_CACHE_DIR`, else `$XDG_CACHE_HOME/debug-gym`, else `~/.cache/debug-gym`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEBUG_GYM_CACHE_DIR) return env.DEBUG_GYM_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'debug-gym');
  return join(homedir(), '.cache', 'debug-gym');
}

/** Hex SHA-256 of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export interface DownloadOptions {
  /** Benchmark name, for error messages. */
  benchmark: string;
  /** Expected hex SHA-256; a mismatch deletes the download and throws. */
  sha256?: string;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
}

/**
 * Download `url` (http(s) or file://) to `target`, atomically (a `.partial` file renamed at the
 * end), and verify its checksum. Returns the file's SHA-256.
 */
export async function downloadFile(url: string, target: string, options: DownloadOptions): Promise<string> {
  await mkdir(dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  const fix = `check your connection (or proxy), or download ${url} yourself and pass its extracted folder with --data-path`;
  try {
    if (url.startsWith('file:')) {
      await pipeline(createReadStream(fileURLToPath(url)), createWriteStream(partial));
    } else {
      const response = await fetch(url, options.signal ? { signal: options.signal } : {});
      if (!response.ok || !response.body) {
        throw new BenchmarkDataError(options.benchmark, `downloading ${url} failed: HTTP ${response.status} ${response.statusText}`, { fix });
      }
      const total = Number(response.headers.get('content-length') ?? 0) || undefined;
      const report = progressReporter(url, total, options.onProgress);
      // Streamed to disk: a dataset of gigabytes never sits in memory.
      await pipeline(
        Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]),
        new Transform({
          transform(chunk: Buffer, _encoding, callback) {
            report(chunk.length);
            callback(null, chunk);
          },
          flush(callback) {
            report(0, true);
            callback();
          },
        }),
        createWriteStream(partial),
        options.signal ? { signal: options.signal } : {},
      );
    }
  } catch (error) {
    await rm(partial, { force: true });
    if (BenchmarkDataError.isInstance(error)) throw error;
    throw new BenchmarkDataError(options.benchmark, `downloading ${url} failed: ${(error as Error).message}`, { fix, cause: error });
  }
  const actual = await sha256File(partial);
  if (options.sha256 && actual !== options.sha256.toLowerCase()) {
    await rm(partial, { force: true });
    throw new BenchmarkDataError(options.benchmark, `the download of ${url} is corrupt: SHA-256 ${actual}, expected ${options.sha256}`, {
      file: target,
      fix: 'run the command again; if it keeps failing, the published file changed: download it yourself, check it, and pass it with --data-path',
    });
  }
  await rename(partial, target);
  return actual;
}

/** How often download progress is reported at most (the last report always comes). */
const PROGRESS_INTERVAL_MS = 250;

/** A progress callback that reports bytes so far at most every 250 ms, and once at the end. */
function progressReporter(url: string, total: number | undefined, onProgress: DownloadOptions['onProgress']): (bytes: number, last?: boolean) => void {
  let done = 0;
  let reported = 0;
  return (bytes, last = false) => {
    done += bytes;
    const now = Date.now();
    if (!onProgress || (!last && now - reported < PROGRESS_INTERVAL_MS)) return;
    reported = now;
    onProgress({ phase: 'download', message: `downloading ${url}`, done, ...(total ? { total } : {}) });
  };
}
