import { constants } from 'node:fs';
import { type FileHandle, cp, lstat, mkdir, open, readdir, rm, stat as statFollow } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { DirEntry, FileStat, FileType, ReadFileOptions, TerminalFiles } from '@debug-gym/core';
import { FileTooLargeError, NotADirectoryError, NotAFileError, PathNotFoundError, PathOutsideWorkspaceError, WorkspaceError } from '@debug-gym/core';
import type { PathResolver } from './path-resolver.js';

/**
 * File access straight on the host file system (the working copy is a host directory), so a
 * `view` or `listdir` costs a syscall, not a process.
 */
export class HostFiles implements TerminalFiles {
  constructor(private readonly paths: PathResolver) {}

  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    const target = await this.paths.resolve(path, true);
    const flags = constants.O_RDONLY | (target.resolved ? constants.O_NOFOLLOW : 0);
    let handle;
    try {
      handle = await open(target.host, flags);
    } catch (error) {
      throw this.fileError(error, path);
    }
    try {
      return await readCapped(handle, path, options.maxBytes);
    } catch (error) {
      throw this.fileError(error, path);
    } finally {
      await handle.close();
    }
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const target = await this.writable(path, true);
    const parent = posix.dirname(target.host);
    try {
      await mkdir(parent, { recursive: true });
    } catch (error) {
      if (code(error) === 'EEXIST' || code(error) === 'ENOTDIR') throw new NotADirectoryError(posix.dirname(path));
      throw this.fileError(error, path);
    }
    const flags =
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (target.resolved ? constants.O_NOFOLLOW : 0);
    let handle;
    try {
      handle = await open(target.host, flags, 0o644);
    } catch (error) {
      throw this.fileError(error, path);
    }
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  }

  async readDir(path: string): Promise<DirEntry[]> {
    const target = await this.paths.resolve(path, true);
    let entries;
    try {
      entries = await readdir(target.host, { withFileTypes: true });
    } catch (error) {
      if (code(error) === 'ENOTDIR') throw new NotADirectoryError(path);
      throw this.fileError(error, path);
    }
    return Promise.all(
      entries.map(async (entry) => {
        const type = direntType(entry);
        const executable = type === 'file' ? await isExecutable(join(target.host, entry.name)) : false;
        return { name: entry.name, type, executable };
      }),
    );
  }

  async stat(path: string): Promise<FileStat | null> {
    let stats;
    try {
      const target = await this.paths.resolve(path, false);
      stats = await lstat(target.host);
    } catch (error) {
      if (error instanceof PathNotFoundError || code(error) === 'ENOENT' || code(error) === 'ENOTDIR') return null;
      throw this.fileError(error, path);
    }
    const type = statsType(stats);
    return { type, size: stats.size, executable: type === 'file' && (stats.mode & 0o111) !== 0 };
  }

  /** What `path` is once symlinks are followed, for checking a command's working directory. */
  async directoryKind(path: string): Promise<'directory' | 'other' | 'missing'> {
    try {
      const target = await this.paths.resolve(path, true);
      return (await statFollow(target.host)).isDirectory() ? 'directory' : 'other';
    } catch {
      return 'missing';
    }
  }

  realPath(path: string): Promise<string> {
    return this.paths.realPath(path);
  }

  async copyIn(hostDir: string, targetDir?: string): Promise<void> {
    const target = await this.writable(targetDir ?? this.paths.workdir, true);
    const source = await lstat(hostDir).catch(() => undefined);
    if (!source) throw new PathNotFoundError(hostDir, hostDir);
    if (!source.isDirectory()) throw new NotADirectoryError(hostDir);
    await mkdir(target.host, { recursive: true });
    await cp(hostDir, target.host, { recursive: true, verbatimSymlinks: true, force: true });
  }

  async remove(path: string): Promise<void> {
    const target = await this.writable(path, false);
    if (target.host !== this.paths.workdir) {
      await rm(target.host, { recursive: true, force: true, maxRetries: 3 });
      return;
    }
    // The working copy itself stays (it is the sandbox's mount point); only its contents go.
    const names = await readdir(target.host);
    await Promise.all(names.map((name) => rm(join(target.host, name), { recursive: true, force: true, maxRetries: 3 })));
  }

  private async writable(path: string, follow: boolean) {
    const target = await this.paths.resolve(path, follow);
    if (!target.writable) throw new PathOutsideWorkspaceError(path, this.paths.workdir);
    return target;
  }

  private fileError(error: unknown, path: string): Error {
    switch (code(error)) {
      case 'ENOENT':
      case 'ENOTDIR':
      case 'ELOOP':
        return new PathNotFoundError(path, this.paths.workdir);
      case 'EISDIR':
        return new NotAFileError(path, 'directory');
    }
    if (error instanceof WorkspaceError) return error;
    return new WorkspaceError('DG_WORKSPACE_IO', `\`${path}\`: ${(error as Error).message}`);
  }
}

function code(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function direntType(entry: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileType {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  return 'other';
}

const statsType = direntType;

async function isExecutable(path: string): Promise<boolean> {
  try {
    return ((await lstat(path)).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The whole file, or FileTooLargeError when it is (or grows) larger than `maxBytes`. */
async function readCapped(handle: FileHandle, path: string, maxBytes: number | undefined): Promise<Uint8Array> {
  const info = await handle.stat();
  if (info.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  if (maxBytes === undefined) return handle.readFile();
  if (info.size > maxBytes) throw new FileTooLargeError(path, info.size, maxBytes);
  // Sized by the file (it may still grow: then doubled, up to one byte past the cap), never by the cap:
  // a 64 MiB cap allocated and zeroed per read was most of an evaluation's Node time, in GC.
  const limit = maxBytes + 1;
  let buffer = Buffer.allocUnsafeSlow(Math.min(limit, Math.max(info.size + 1, MIN_READ_BUFFER)));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= limit) break;
      const grown = Buffer.allocUnsafeSlow(Math.min(limit, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
    if (bytesRead === 0) break;
    length += bytesRead;
  }
  if (length > maxBytes) throw new FileTooLargeError(path, Math.max(length, info.size), maxBytes);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
}

const MIN_READ_BUFFER = 8 * 1024;
