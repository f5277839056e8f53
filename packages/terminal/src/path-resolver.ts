import { realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import { PathNotFoundError } from '@debug-gym/core';

export interface ResolvedPath {
  /** Where the sandbox path lives on the host. */
  host: string;
  /** Inside a writable part of the sandbox (the working copy, scratch space). */
  writable: boolean;
  /** Every symlink on the way was resolved (in the sandbox's view): open the result with O_NOFOLLOW. */
  resolved: boolean;
}

/** Maps paths as the sandbox sees them (relative = under `workdir`) to host paths. */
export interface PathResolver {
  readonly workdir: string;
  /** `follow`: resolve a final symlink too (reads, writes) or not (stat, remove). */
  resolve(path: string, follow: boolean): Promise<ResolvedPath>;
  /** Canonical sandbox path; PathNotFoundError when missing. */
  realPath(path: string): Promise<string>;
}

/** The host itself is the sandbox: paths are host paths. */
export class HostPathResolver implements PathResolver {
  constructor(readonly workdir: string) {}

  async resolve(path: string, _follow?: boolean): Promise<ResolvedPath> {
    return { host: posix.resolve(this.workdir, path), writable: true, resolved: false };
  }

  async realPath(path: string): Promise<string> {
    try {
      return await realpath(posix.resolve(this.workdir, path));
    } catch {
      throw new PathNotFoundError(path, this.workdir);
    }
  }
}
