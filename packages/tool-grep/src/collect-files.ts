import { posix } from 'node:path';
import { WorkspaceError, type DirEntry, type ResolvedPath, type ToolWorkspace } from '@debug-gym/spec';

/** The working copy (paths, hidden files) and directory listing of the sandbox (`context.terminal.readDir`). */
export interface FileSource {
  workspace: ToolWorkspace;
  readDir(path: string): Promise<DirEntry[]>;
}
import { walkTree } from '@debug-gym/plugin-kit';
import { compileGlob, scanGlob } from './glob.js';

/** A file to search: where it is, and how the output names it. */
export interface SearchTarget {
  absolute: string;
  /** As grep would print it: `./a.py` for a whole-repository search, else under the path as typed. */
  display: string;
}

/** Directories grep never descends into (the original filtered them out of its output). */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', '__pycache__', 'node_modules']);

export interface CollectLimits {
  /** Folder levels below the searched directory that are entered. */
  maxDepth: number;
  /** Files collected at most. */
  maxFiles: number;
  /** Epoch milliseconds after which no further folder is read. */
  deadline: number;
}

export interface Collected {
  targets: SearchTarget[];
  /** Folders at `maxDepth` that were not entered (their display names, first few). */
  tooDeep: string[];
  tooDeepCount: number;
  /** Stopped at `maxFiles`. */
  fileLimitHit: boolean;
  /** Stopped at the deadline before every folder was read. */
  outOfTime: boolean;
}

type Include = (relative: string) => boolean;

/** The walk hands the event loop back after this much work. */
const YIELD_EVERY_MS = 5;

/** A glob the search cannot use (too long, a bad bracket range): grep's answer names it. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GlobError';
  }
}

function emptyCollection(targets: SearchTarget[] = []): Collected {
  return { targets, tooDeep: [], tooDeepCount: 0, fileLimitHit: false, outOfTime: false };
}

/**
 * Visible regular files below a directory, sorted by name, depth first, within the limits. Hidden
 * (`.debugignore`) entries, symlinks (as `grep -r`) and the skipped directories are left out.
 * `include` decides per entry (relative to the working copy root); a matching directory includes
 * everything below it.
 */
async function walk({ workspace, readDir }: FileSource, root: ResolvedPath, display: string, include: Include | null, limits: CollectLimits): Promise<Collected> {
  const found = emptyCollection();
  const includedDirs = new Set<string>();
  const isIncluded = (relative: string): boolean => {
    if (include === null || include(relative)) return true;
    for (let dir = posix.dirname(relative); dir !== '.' && dir !== root.relative && dir !== ''; dir = posix.dirname(dir)) {
      if (includedDirs.has(dir)) return true;
    }
    return false;
  };
  const entries = walkTree((dir) => readDir(dir), root, {
    maxDepth: limits.maxDepth,
    skip: (entry) => workspace.isIgnored(entry.relative, entry.type === 'directory') || (entry.type === 'directory' && SKIPPED_DIRECTORIES.has(entry.name)),
    descend: () => {
      if (Date.now() < limits.deadline) return true;
      found.outOfTime = true;
      return false;
    },
  });
  let sliceStart = performance.now();
  for await (const entry of entries) {
    if (found.outOfTime) break;
    // The walk and the glob run on the event loop: give it back every few milliseconds (a folder of
    // thousands of names is otherwise handled in one go).
    if (performance.now() - sliceStart > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
    const shown = `${display}${entry.absolute.slice(root.absolute.length)}`;
    if (entry.type === 'directory') {
      if (include !== null && include(entry.relative)) includedDirs.add(entry.relative);
      if (entry.depth >= limits.maxDepth) {
        found.tooDeepCount += 1;
        if (found.tooDeep.length < 3) found.tooDeep.push(shown);
      }
      continue;
    }
    if (entry.type !== 'file' || !isIncluded(entry.relative)) continue;
    if (found.targets.length >= limits.maxFiles) {
      found.fileLimitHit = true;
      break;
    }
    found.targets.push({ absolute: entry.absolute, display: shown });
  }
  return found;
}

function displayBase(typed: string): string {
  let end = typed.length;
  while (end > 0 && typed.charCodeAt(end - 1) === 0x2f) end -= 1;
  const trimmed = typed.slice(0, end);
  return trimmed === '' ? '/' : trimmed;
}

/** A path argument containing glob characters that does not name an existing file. */
async function collectGlob(source: FileSource, path: string, limits: CollectLimits): Promise<Collected | null> {
  const scan = scanGlob(path);
  if (!scan.isGlob) return null;
  const typedBase = `${scan.prefix}${scan.base}`;
  const { workspace } = source;
  let base: Awaited<ReturnType<ToolWorkspace['resolveExisting']>>;
  try {
    base = await workspace.resolveExisting(typedBase === '' ? '.' : typedBase);
  } catch (error) {
    if (WorkspaceError.isInstance(error)) return emptyCollection();
    throw error;
  }
  if (base.type !== 'directory') return emptyCollection();
  // A glob without `/` matches names at any depth (`*.py`: every Python file); with `/` it matches
  // whole paths from the working copy root (`src/*.py`, `src/**/test_*.py`).
  const byName = typedBase === '' && !scan.glob.includes('/');
  const compiled = byName ? compileGlob(scan.glob) : compileGlob(scan.glob, base.relative);
  if (!compiled.ok) throw new GlobError(compiled.message);
  const matcher = compiled.match;
  const include: Include = byName ? (relative) => matcher(posix.basename(relative)) : (relative) => matcher(relative);
  const display = typedBase === '' ? '.' : displayBase(typedBase);
  return walk(source, base, display, include, limits);
}

/**
 * The files a search covers: the whole working copy (no path), one file, a directory, or a glob.
 * A path that does not exist (or is hidden) and is no glob throws the workspace's not-found error.
 */
export async function collectFiles(source: FileSource, path: string | undefined, limits: CollectLimits): Promise<Collected> {
  const typed = path?.trim() ?? '';
  const { workspace } = source;
  if (typed === '') return walk(source, await workspace.resolveExisting('.'), '.', null, limits);
  let resolved: Awaited<ReturnType<ToolWorkspace['resolveExisting']>>;
  try {
    resolved = await workspace.resolveExisting(typed);
  } catch (error) {
    const globbed = WorkspaceError.isInstance(error) ? await collectGlob(source, typed, limits) : null;
    if (globbed) return globbed;
    throw error;
  }
  if (resolved.type === 'file') return emptyCollection([{ absolute: resolved.absolute, display: typed }]);
  if (resolved.type !== 'directory') return emptyCollection();
  return walk(source, resolved, displayBase(typed), null, limits);
}
