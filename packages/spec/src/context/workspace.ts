import type { DirEntry } from '../terminal/index.js';

/** A path inside the working copy, resolved and checked. */
export interface ResolvedPath {
  /** Absolute path inside the sandbox. */
  absolute: string;
  /** Path relative to the working copy root (`''` for the root itself), `/`-separated. */
  relative: string;
}

/** One visible entry of a `listTree` listing. */
export interface TreeEntry extends DirEntry {
  /** Relative to the working copy root. */
  relative: string;
  depth: number;
  readonly: boolean;
}

/** What `listTree` returns. */
export interface TreeListing {
  root: ResolvedPath;
  entries: TreeEntry[];
  /** Visible entries left out because the listing reached `maxEntries` (counted in the folders already read). */
  omitted: number;
}

/**
 * The agent's view of the working copy, as tools see it (`context.workspace`): every path goes
 * through here, so path safety, hidden files and read-only files are enforced in one place.
 * Exactly the members the bundled tools use; core's `Workspace` class implements it (and more).
 */
export interface ToolWorkspace {
  /** Absolute path of the working copy inside the sandbox. */
  readonly workdir: string;
  /** The relative path is hidden (`.debugignore`, task ignore patterns). */
  isIgnored(relative: string, isDirectory?: boolean): boolean;
  /** The relative path is read-only (`.debugreadonly`, task read-only patterns). */
  isReadonly(relative: string): boolean;
  /** Resolve a path that must exist and be visible; hidden paths are reported like missing ones. */
  resolveExisting(path: string): Promise<ResolvedPath & { type: DirEntry['type'] }>;
  /** Read a visible UTF-8 text file (refuses directories, binary files, files over `maxBytes`). */
  readText(path: string, options?: { maxBytes?: number }): Promise<ResolvedPath & { text: string }>;
  /** Check that `path` may be written (inside, not hidden, not read-only, not a directory). */
  checkWritable(path: string): Promise<ResolvedPath & { exists: boolean }>;
  /** Write a text file after `checkWritable`. */
  writeText(path: string, text: string): Promise<ResolvedPath>;
  /** Visible entries below `path`, depth-first, sorted by name, at most `depth` levels and `maxEntries` entries. */
  listTree(path: string, depth: number, options?: { maxEntries?: number }): Promise<TreeListing>;
}
