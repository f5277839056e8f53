import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { posix } from 'node:path';

/** Top-level host directories every sandbox sees read-only (when they exist). */
const SYSTEM_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'etc', 'opt', 'nix'];

export interface LayoutInput {
  /** Working copy inside the jail (a sized tmpfs). */
  workdir: string;
  /** Further host paths to show read-only (the Python's prefixes, user-configured paths). */
  readOnly: string[];
  /** Sizes of the jail's writable tmpfs mounts, in bytes. */
  sizes: { workdir: number; tmp: number; shm: number };
  /** Files bwrap writes into the jail from a file descriptor it inherits (the `python` wrappers), read-only once it is built. */
  files?: Array<{ fd: number; target: string; mode: string }>;
}

/**
 * bwrap arguments that build the jail's file system: system directories read-only, the user's home
 * and everything else hidden, and only memory-backed mounts of a fixed size writable (the working
 * copy, /tmp, /dev/shm; the jail's root and /dev read-only), so nothing the sandbox writes reaches
 * the host's disk or outlives the jail.
 * Later mounts win, so the order matters.
 */
export function bubblewrapLayout(input: LayoutInput): string[] {
  const args: string[] = [];
  const shown: string[] = [];
  const symlinks: string[] = [];
  for (const name of SYSTEM_DIRS) {
    const path = `/${name}`;
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats?.isSymbolicLink()) {
      args.push('--symlink', readlinkSync(path), path);
      symlinks.push(path);
    } else if (stats?.isDirectory()) {
      args.push('--ro-bind', path, path);
      shown.push(path);
    }
  }
  args.push('--dev', '/dev', '--proc', '/proc');
  args.push(...sizedTmpfs('/dev/shm', input.sizes.shm, '1777'), ...sizedTmpfs('/tmp', input.sizes.tmp, '1777'));

  const made = new Set<string>(['/', '/tmp', '/dev']);
  // Shows the same content as on the host.
  const covered = (path: string): boolean => [...symlinks, ...shown].some((dir) => isWithin(path, dir));
  const makeParents = (path: string): void => {
    for (const dir of ancestors(path)) {
      if (made.has(dir) || covered(dir)) continue;
      args.push('--perms', '0755', '--dir', dir);
      made.add(dir);
    }
  };
  for (const path of dedupe(input.readOnly)) {
    // Never over (or above) the jail's own mounts: that would show the host's /tmp, or hide the working copy.
    const hides = [input.workdir, '/tmp', '/dev', '/proc'].some((own) => isWithin(own, path) || isWithin(path, own) && own !== '/tmp');
    if (hides || covered(path) || !existsSync(path)) continue;
    makeParents(path);
    args.push('--ro-bind', path, path);
    shown.push(path);
  }
  for (const { fd, target, mode } of input.files ?? []) {
    makeParents(target);
    args.push('--perms', mode, '--file', String(fd), target);
  }
  makeParents(input.workdir);
  // World-writable: as root the jail's processes run as a random uid, which cannot own the mount.
  args.push(...sizedTmpfs(input.workdir, input.sizes.workdir, '0777'));
  // bwrap's own root and /dev are tmpfs without a size, which the sandbox's user owns when bwrap runs
  // as a normal user: read-only (not recursive: the sized mounts in them stay writable), so the
  // only writable paths are the sized ones above.
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  return args;
}

function sizedTmpfs(path: string, bytes: number, mode: string): string[] {
  return ['--perms', mode, '--size', String(Math.floor(bytes)), '--tmpfs', path];
}

function isWithin(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(`${dir}/`);
}

/** Parents of `path`, outermost first, without `/` and `path` itself. */
function ancestors(path: string): string[] {
  const result: string[] = [];
  for (let dir = posix.dirname(path); dir !== '/'; dir = posix.dirname(dir)) result.unshift(dir);
  return result;
}

/** Absolute, normalized, existing-or-not paths with nested ones dropped (their parent covers them). */
function dedupe(paths: string[]): string[] {
  const sorted = [...new Set(paths.filter((p) => posix.isAbsolute(p)).map((p) => trimTrailingSlashes(posix.normalize(p)) || '/'))].sort();
  return sorted.filter((path, index) => !sorted.slice(0, index).some((outer) => isWithin(path, outer)));
}

/** The path without its trailing slashes (a scan: `/\/+$/` is quadratic on a run of slashes inside the text). */
function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  return path.slice(0, end);
}
