/** How a failed helper file operation (Docker or bubblewrap) surfaces: the workspace errors the local backend throws too. */
import { posix } from 'node:path';
import { NotADirectoryError, NotAFileError, PathNotFoundError, WorkspaceError } from '@debug-gym/core';
import type { HelperOpError } from './docker-helper-client.js';

/** The error for `op` on `path` (as the caller gave it) that failed in the helper with `error`. */
export function fileOpError(error: HelperOpError, op: string, path: string, workdir: string): Error {
  switch (error.errno) {
    case 'ENOENT':
    case 'ELOOP':
      return new PathNotFoundError(path, workdir);
    case 'ENOTDIR':
      if (op === 'readdir') return new NotADirectoryError(path);
      if (op === 'write' || op === 'mkdir') return new NotADirectoryError(posix.dirname(path));
      return new PathNotFoundError(path, workdir);
    case 'EEXIST':
      // makedirs met a file where a parent directory should be.
      if (op === 'write' || op === 'mkdir') return new NotADirectoryError(op === 'write' ? posix.dirname(path) : path);
      break;
    case 'EISDIR':
      return new NotAFileError(path, 'directory');
    case 'EINVAL':
      if (op === 'read') return new NotAFileError(path, 'special file');
      break;
  }
  return new WorkspaceError('DG_WORKSPACE_IO', `${op} \`${path}\` failed in the sandbox: ${error.message}`);
}
