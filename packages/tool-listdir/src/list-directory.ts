import { DebugGymError, type ToolContext } from '@debug-gym/spec';
import { formatTree } from '@debug-gym/plugin-kit';

export interface ListdirArguments {
  path?: string;
  depth?: number;
}

export interface ListdirOptions {
  /** Entries listed at most; the rest is counted in a last line. Default 1000. */
  maxEntries?: number;
}

/** Deeper listings are cut here (the original's limit). */
export const MAX_DEPTH = 20;
export const DEFAULT_MAX_ENTRIES = 1000;

/** The `listdir` tool: the tree of a directory of the working copy, hidden entries pruned, at most `maxEntries` lines. */
export async function listDirectory(args: ListdirArguments, context: ToolContext, options: ListdirOptions = {}): Promise<string> {
  const depth = args.depth ?? 1;
  if (depth <= 0) return `Depth must be 1 or greater, got \`depth=${depth}\``;
  // The schema says `number`, as the original's does; a depth still counts whole levels.
  if (!Number.isInteger(depth)) return `Depth must be a whole number, got \`depth=${depth}\``;
  const path = args.path === undefined || args.path.trim() === '' ? '.' : args.path;
  try {
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    const { root, entries, omitted } = await context.workspace.listTree(path, Math.min(depth, MAX_DEPTH), { maxEntries });
    return formatTree(root.absolute, entries, { omitted });
  } catch (error) {
    // A dead sandbox ends the episode: let the env see it. Errors are matched by their stable code.
    if (DebugGymError.hasCode(error, 'DG_TERMINAL_UNRECOVERABLE')) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const hint = DebugGymError.hasCode(error, 'DG_WORKSPACE_NOT_A_DIRECTORY') ? ' Use view to read a file.' : '';
    return `Error listing directory '${path}': ${message}${hint}`;
  }
}
