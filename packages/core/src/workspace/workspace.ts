import { posix } from 'node:path';
import {
  BinaryFileError,
  FileTooLargeError,
  NotADirectoryError,
  NotAFileError,
  PathNotFoundError,
  PathOutsideWorkspaceError,
  ReadOnlyPathError,
  WorkspaceError,
} from '@debug-gym/spec';
import type { DirEntry, ResolvedPath, Terminal, ToolWorkspace, TreeEntry, TreeListing } from '@debug-gym/spec';
import { IGNORE_FILE, PathRules, READONLY_FILE, parseRulesFile } from './path-rules.js';
import { walkTree } from '@debug-gym/plugin-kit';

/** Bytes `readText` reads at most when the caller sets no cap. */
export const DEFAULT_MAX_READ_BYTES = 8 * 1024 * 1024;
/** `.debugignore` / `.debugreadonly` are read with this cap (they are read at reset, from the pristine copy). */
const MAX_RULES_FILE_BYTES = 1024 * 1024;

export interface WorkspaceRulesOptions {
  /** Extra hidden paths (gitignore syntax), on top of `.debugignore`. */
  ignorePatterns?: readonly string[];
  /** Extra read-only paths (gitignore syntax), on top of `.debugreadonly`. */
  readonlyPatterns?: readonly string[];
  /** Cap of `readText` when the caller gives none. Default 8 MiB. */
  maxReadBytes?: number;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The agent's view of the working copy: every path a tool receives goes through here, so path
 * safety, hidden files and read-only files are enforced in one place for every tool and backend.
 */
export class Workspace implements ToolWorkspace {
  private rules = new PathRules();

  constructor(
    readonly terminal: Terminal,
    private readonly options: WorkspaceRulesOptions = {},
  ) {}

  get workdir(): string {
    return this.terminal.workdir;
  }

  /** Re-read `.debugignore` / `.debugreadonly` from the working copy root. */
  async loadRules(): Promise<void> {
    const [ignoreText, readonlyText] = await Promise.all([this.readRaw(IGNORE_FILE), this.readRaw(READONLY_FILE)]);
    this.rules = new PathRules(this.options.ignorePatterns, this.options.readonlyPatterns, {
      ignore: parseRulesFile(ignoreText),
      readonly: parseRulesFile(readonlyText),
    });
  }

  /**
   * Take `other`'s rules as read at its reset, for `env.fork()`: by then the agent may have changed or
   * deleted `.debugignore` / `.debugreadonly` in the working copy, and a fork must not obey its edits.
   */
  adoptRules(other: Workspace): void {
    this.rules = other.rules;
  }

  /** Lexical resolution: refuses paths that leave the working copy (`..`, foreign absolute paths). */
  resolve(path: string): ResolvedPath {
    const trimmed = path.trim();
    if (trimmed === '') throw new WorkspaceError('DG_WORKSPACE_EMPTY_PATH', 'Invalid file path. Please specify a valid file path.');
    const absolute = posix.resolve(this.workdir, trimmed);
    const relative = posix.relative(this.workdir, absolute);
    if (relative.startsWith('..') || posix.isAbsolute(relative)) throw new PathOutsideWorkspaceError(path, this.workdir);
    return { absolute, relative };
  }

  isIgnored(relative: string, isDirectory = false): boolean {
    return this.rules.isIgnored(relative, isDirectory);
  }

  isReadonly(relative: string): boolean {
    return this.rules.isReadonly(relative);
  }

  /**
   * Resolve a path that must exist and be visible. Symlinks are followed (the final component and
   * any directory on the way) and must stay inside; hidden paths are reported exactly like missing
   * ones, so their existence is not revealed.
   */
  async resolveExisting(path: string): Promise<ResolvedPath & { type: DirEntry['type'] }> {
    const { realRelative: _real, ...resolved } = await this.resolveReal(path);
    return resolved;
  }

  private async resolveReal(path: string): Promise<ResolvedPath & { type: DirEntry['type']; realRelative: string }> {
    const resolved = this.resolve(path);
    const [stat, real] = await Promise.all([
      this.terminal.stat(resolved.absolute),
      this.terminal.realPath(resolved.absolute).catch(() => null),
    ]);
    if (!stat || real === null || this.hiddenOnTheWay(resolved.relative, stat.type === 'directory')) throw new PathNotFoundError(path, this.workdir);
    const realRelative = await this.insideRelative(real, path);
    if (stat.type !== 'symlink' && realRelative === resolved.relative) return { ...resolved, type: stat.type, realRelative };
    const target = stat.type === 'symlink' ? await this.terminal.stat(real) : stat;
    if (!target || this.hiddenOnTheWay(realRelative, target.type === 'directory')) throw new PathNotFoundError(path, this.workdir);
    return { ...resolved, type: target.type, realRelative };
  }

  /** `real` (a canonical path) relative to the real working copy; refuses a path outside it. */
  private async insideRelative(real: string, path: string): Promise<string> {
    const relative = posix.relative(await this.realWorkdir(), real);
    if (relative.startsWith('..') || posix.isAbsolute(relative)) throw new PathOutsideWorkspaceError(path, this.workdir);
    return relative;
  }

  /**
   * Read a visible text file. Refuses directories, binary and non-UTF-8 files, and files larger than
   * `maxBytes` (FileTooLargeError, checked before reading), with a clear message.
   */
  async readText(path: string, options: { maxBytes?: number } = {}): Promise<ResolvedPath & { text: string }> {
    const resolved = await this.resolveExisting(path);
    if (resolved.type === 'directory') throw new NotAFileError(path, 'directory');
    const maxBytes = options.maxBytes ?? this.options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
    const bytes = await this.readCapped(path, resolved.absolute, maxBytes);
    if (bytes.includes(0)) throw new BinaryFileError(path);
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      throw new BinaryFileError(path);
    }
    return { absolute: resolved.absolute, relative: resolved.relative, text };
  }

  /** Whether a visible file exists at `path` (no throw). */
  async exists(path: string): Promise<boolean> {
    try {
      await this.resolveExisting(path);
      return true;
    } catch (error) {
      if (WorkspaceError.isInstance(error)) return false;
      throw error;
    }
  }

  /** Check that `path` may be written (inside, not hidden, not read-only, not a directory). */
  async checkWritable(path: string): Promise<ResolvedPath & { exists: boolean }> {
    const resolved = this.resolve(path);
    if (resolved.relative === '') throw new NotAFileError(path, 'directory');
    if (this.hiddenOnTheWay(resolved.relative, false)) {
      throw new WorkspaceError('DG_WORKSPACE_IGNORED', `\`${path}\` cannot be written: the path is excluded from this task (.debugignore).`);
    }
    if (this.rules.isReadonly(resolved.relative)) throw new ReadOnlyPathError(path);
    const stat = await this.terminal.stat(resolved.absolute);
    if (stat?.type === 'directory') throw new NotAFileError(path, 'directory');
    if (stat) {
      // Existing: a symlink (here or on the way) must end inside, on a visible, writable file.
      const existing = await this.resolveReal(path);
      if (existing.type === 'directory') throw new NotAFileError(path, 'directory');
      if (existing.realRelative !== resolved.relative && this.rules.isReadonly(existing.realRelative)) throw new ReadOnlyPathError(path);
      return { ...resolved, exists: true };
    }
    // New file: the nearest existing folder on the way must really be inside (no symlinked folder leading out).
    for (let dir = posix.dirname(resolved.absolute); ; dir = posix.dirname(dir)) {
      const real = await this.terminal.realPath(dir).catch(() => null);
      if (real !== null) {
        await this.insideRelative(real, path);
        break;
      }
      if (dir === this.workdir || dir === '/') break;
    }
    return { ...resolved, exists: false };
  }

  /** Write a text file after `checkWritable`. */
  async writeText(path: string, text: string): Promise<ResolvedPath> {
    const resolved = await this.checkWritable(path);
    await this.terminal.writeFile(resolved.absolute, text);
    return resolved;
  }

  /**
   * Visible entries below `path`, depth-first, sorted by name, at most `depth` levels deep and at
   * most `maxEntries` of them; once full, no further folder is read and the rest is only counted.
   */
  async listTree(path: string, depth: number, options: { maxEntries?: number } = {}): Promise<TreeListing> {
    const root = await this.resolveExisting(path);
    if (root.type !== 'directory') throw new NotADirectoryError(path);
    const maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
    const entries: TreeEntry[] = [];
    let omitted = 0;
    const walk = walkTree((dir) => this.terminal.readDir(dir), root, {
      maxDepth: depth,
      skip: (entry) => this.rules.isIgnored(entry.relative, entry.type === 'directory'),
      descend: () => entries.length < maxEntries,
    });
    for await (const entry of walk) {
      if (entries.length >= maxEntries) {
        omitted += 1;
        continue;
      }
      entries.push({ name: entry.name, type: entry.type, executable: entry.executable, relative: entry.relative, depth: entry.depth, readonly: this.rules.isReadonly(entry.relative) });
    }
    return { root, entries, omitted };
  }

  /** `terminal.readFile` with a cap; a file over it is reported under the path the agent gave. */
  private async readCapped(path: string, absolute: string, maxBytes: number): Promise<Uint8Array> {
    try {
      return await this.terminal.readFile(absolute, { maxBytes });
    } catch (error) {
      if (FileTooLargeError.isInstance(error)) throw new FileTooLargeError(path, error.size, maxBytes);
      throw error;
    }
  }

  private hiddenOnTheWay(relative: string, isDirectory: boolean): boolean {
    if (relative === '') return false;
    return this.rules.isIgnored(relative, isDirectory);
  }

  private realWorkdirCache: string | undefined;
  private async realWorkdir(): Promise<string> {
    if (this.realWorkdirCache === undefined) this.realWorkdirCache = await this.terminal.realPath(this.workdir);
    return this.realWorkdirCache;
  }

  /** Forget cached facts about the working copy (after reset). */
  invalidate(): void {
    this.realWorkdirCache = undefined;
  }

  private async readRaw(relative: string): Promise<string> {
    try {
      return Buffer.from(await this.terminal.readFile(posix.join(this.workdir, relative), { maxBytes: MAX_RULES_FILE_BYTES })).toString('utf8');
    } catch (error) {
      // Ignoring an oversized rules file would reveal what it hides: refuse the reset instead.
      if (FileTooLargeError.isInstance(error)) throw error;
      return '';
    }
  }
}
