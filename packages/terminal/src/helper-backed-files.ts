import { lstat } from 'node:fs/promises';
import { posix } from 'node:path';
import type { DirEntry, FileStat, FileType, PausedProcesses, ReadFileOptions } from '@debug-gym/core';
import { FileTooLargeError, NotADirectoryError, PathNotFoundError } from '@debug-gym/core';
import { fileOpError } from './docker-file-errors.js';
import { HelperOpError, type HelperResponse } from './docker-helper-client.js';
import { pauseThroughHelper } from './paused-processes.js';

/** How much of a file one helper reply carries (base64 in a JSON line). */
const READ_PIECE_BYTES = 2 * 1024 * 1024;

/**
 * The file half of a terminal whose working copy lives behind the in-sandbox helper (Docker,
 * bubblewrap): every path is resolved by the kernel inside the sandbox, never on the host, so a
 * symlink the agent swaps in cannot lead a file operation out of it.
 */
export abstract class HelperBackedFiles {
  /** Absolute path of the working copy inside the sandbox. */
  protected abstract readonly workdirPath: string;

  /** Send one file request to the live helper (throws when the sandbox is not started or gone). */
  protected abstract helperCall(op: string, params: Record<string, unknown>): Promise<HelperResponse>;

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    // In pieces: each reply is one JSON line the driver parses on its event loop, which every session
    // shares. Each piece's base64 is decoded straight into one buffer of the file's size (no copies).
    let whole: Buffer | null = null;
    let offset = 0;
    for (;;) {
      const response = await this.fileCall('read', path, { offset, length: READ_PIECE_BYTES, ...(options.maxBytes === undefined ? {} : { max: options.maxBytes }) });
      if (typeof response.tooLarge === 'number') throw new FileTooLargeError(path, response.tooLarge, options.maxBytes as number);
      const data = String(response.data ?? '');
      if (!whole && response.more !== true) return new Uint8Array(Buffer.from(data, 'base64'));
      const length = Buffer.byteLength(data, 'base64');
      if (!whole || offset + length > whole.length) {
        // The file grew since its size was read: a bigger buffer, what came so far copied over.
        const grown = Buffer.allocUnsafe(Math.max(typeof response.size === 'number' ? response.size : 0, offset + length, (whole?.length ?? 0) * 2));
        whole?.copy(grown, 0, 0, offset);
        whole = grown;
      }
      offset += whole.write(data, offset, 'base64');
      if (response.more !== true || length === 0) break;
    }
    return new Uint8Array(whole.buffer, whole.byteOffset, offset);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    await this.fileCall('write', path, { data: bytes.toString('base64') });
  }

  async readDir(path: string): Promise<DirEntry[]> {
    const response = await this.fileCall('readdir', path);
    const entries = response.entries as Array<[string, FileType, boolean]>;
    return entries.map(([name, type, executable]) => ({ name, type, executable }));
  }

  async stat(path: string): Promise<FileStat | null> {
    const response = await this.fileCall('stat', path);
    return (response.stat as FileStat | null) ?? null;
  }

  async realPath(path: string): Promise<string> {
    const response = await this.fileCall('realpath', path);
    return String(response.path);
  }

  async remove(path: string): Promise<void> {
    // Removing the working copy itself empties it (it stays: commands keep running in it).
    await this.fileCall('remove', path, { keepRoot: this.resolve(path) === this.workdirPath });
  }

  /** Stop the agent's processes in the sandbox until `resume()` (`Terminal.pauseProcesses`). */
  pauseProcesses(): Promise<PausedProcesses> {
    return pauseThroughHelper((op, params) => this.helperCall(op, params));
  }

  /** `cwd` (as the caller gave it) resolved, once checked to be a directory in the sandbox: a typo is a typed error, not a shell message. */
  protected async checkedDirectory(cwd: string): Promise<string> {
    const where = await this.fileCall('stat', cwd, { follow: true });
    if (!where.stat) throw new PathNotFoundError(cwd, this.workdirPath);
    if ((where.stat as FileStat).type !== 'directory') throw new NotADirectoryError(cwd);
    return this.resolve(cwd);
  }

  protected resolve(path: string): string {
    return posix.resolve(this.workdirPath, path);
  }

  /** A file request for `path` (as the caller gave it); a failure becomes the workspace error the local backend throws too. */
  protected async fileCall(op: string, path: string, extra: Record<string, unknown> = {}): Promise<HelperResponse> {
    try {
      return await this.helperCall(op, { ...extra, path: this.resolve(path) });
    } catch (error) {
      if (!(error instanceof HelperOpError)) throw error;
      throw fileOpError(error, op, path, this.workdirPath);
    }
  }
}

/** What `copyIn` copies must be a host directory. */
export async function requireHostDirectory(hostDir: string): Promise<void> {
  const source = await lstat(hostDir).catch(() => undefined);
  if (!source) throw new PathNotFoundError(hostDir, hostDir);
  if (!source.isDirectory()) throw new NotADirectoryError(hostDir);
}
