import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { BenchmarkDataError } from '@debug-gym/spec';
import { unzipSync } from 'fflate';

/**
 * Extract a zip archive into `target`. Entries that would land outside it (absolute paths, `..`)
 * are refused; macOS resource forks (`__MACOSX/`) are skipped. Returns the extracted file paths.
 */
export async function extractZip(data: Uint8Array, target: string, benchmark: string, archive: string): Promise<string[]> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(data);
  } catch (error) {
    throw new BenchmarkDataError(benchmark, `the archive is not a valid zip file (${(error as Error).message})`, {
      file: archive,
      fix: 'delete it and run the command again to download it afresh',
      cause: error,
    });
  }
  const written: string[] = [];
  for (const [name, content] of Object.entries(entries)) {
    if (name.startsWith('__MACOSX/')) continue;
    const relative = normalize(name);
    if (isAbsolute(name) || relative === '..' || relative.startsWith(`..${sep}`)) {
      throw new BenchmarkDataError(benchmark, `the archive holds an entry outside its folder: '${name}'`, {
        file: archive,
        fix: 'this archive is unsafe: do not use it; download the official one',
      });
    }
    const path = join(target, relative);
    if (name.endsWith('/')) {
      await mkdir(path, { recursive: true });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
    written.push(relative);
  }
  return written;
}
