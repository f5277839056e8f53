import { posix } from 'node:path';
import { WorkspaceError, type DirEntry } from '@debug-gym/spec';

/** One entry met by `walkTree`. */
export interface WalkEntry extends DirEntry {
  absolute: string;
  /** Relative to the working copy root, `/`-separated. */
  relative: string;
  /** 1 for the children of the walk's root. */
  depth: number;
}

export interface WalkOptions {
  /** Directories at this depth are yielded but not entered. */
  maxDepth: number;
  /** Called for each directory within `maxDepth` before it is entered; false skips its contents. */
  descend?: (entry: WalkEntry) => boolean;
  /** Leaves out an entry and everything below it. */
  skip?: (entry: WalkEntry) => boolean;
  /** Directories listed ahead of the walk, so a backend's round trips overlap. Default 16. */
  prefetch?: number;
}

type Frame = { absolute: string; relative: string; depth: number; children: DirEntry[]; next: number };

function entryOf(frame: Frame, child: DirEntry): WalkEntry {
  return {
    ...child,
    absolute: posix.join(frame.absolute, child.name),
    relative: frame.relative === '' ? child.name : `${frame.relative}/${child.name}`,
    depth: frame.depth + 1,
  };
}

const byName = (a: DirEntry, b: DirEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The entries below a directory, depth first, sorted by name, without recursion (a chain of
 * thousands of folders cannot overflow the stack) and without building the whole tree: the
 * caller stops the walk by leaving its `for await` loop. A folder that vanished meanwhile is empty.
 */
export async function* walkTree(
  readDir: (absolute: string) => Promise<DirEntry[]>,
  root: { absolute: string; relative: string },
  options: WalkOptions,
): AsyncGenerator<WalkEntry> {
  const window = options.prefetch ?? 16;
  const listings = new Map<string, Promise<DirEntry[]>>();
  const list = (absolute: string): Promise<DirEntry[]> => {
    let pending = listings.get(absolute);
    if (!pending) {
      // A folder removed or replaced meanwhile is empty; anything else (a dead sandbox) still fails the walk.
      pending = readDir(absolute).catch((error: unknown) => (WorkspaceError.isInstance(error) ? [] : Promise.reject(error)));
      pending.catch(() => undefined); // a prefetched listing may never be awaited
      listings.set(absolute, pending);
    }
    return pending;
  };
  const stack: Frame[] = [{ ...root, depth: 0, children: (await list(root.absolute)).sort(byName), next: 0 }];
  listings.clear();
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.next >= frame.children.length) {
      stack.pop();
      continue;
    }
    const child = frame.children[frame.next++] as DirEntry;
    const entry = entryOf(frame, child);
    if (options.skip?.(entry)) continue;
    yield entry;
    if (entry.type !== 'directory' || entry.depth >= options.maxDepth || options.descend?.(entry) === false) continue;
    // Start listing the next few sibling folders while this one is read.
    for (let i = frame.next, started = 0; i < frame.children.length && started < window; i += 1) {
      const sibling = entryOf(frame, frame.children[i] as DirEntry);
      if (sibling.type === 'directory' && !options.skip?.(sibling)) {
        void list(sibling.absolute);
        started += 1;
      }
    }
    const children = await list(entry.absolute);
    listings.delete(entry.absolute);
    stack.push({ absolute: entry.absolute, relative: entry.relative, depth: entry.depth, children: children.sort(byName), next: 0 });
  }
}
