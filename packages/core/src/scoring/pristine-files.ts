import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Terminal } from '@debug-gym/spec';

/** Names pytest or Python load as configuration or plugins when found in the working copy. */
export const CONFIG_NAMES = new Set(['conftest.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml']);
const SHADOW_NAMES = new Set(['pytest.py', 'pytest', '_pytest', 'pytest.pyc', 'pluggy', 'pluggy.py', '_pytest.py', 'py.py', 'sitecustomize.py', 'usercustomize.py']);
const TEST_FILE = /^(test_.*|.*_test)\.py$/;
/** A folder of tests: everything under the nearest such ancestor of a test file is protected. */
const TEST_DIR = /^(tests?|testing)$/i;
/** A module file that `import tests` (or test, testing) could load instead of a test folder without `__init__.py`. */
const TEST_DIR_SHADOW = /^(tests?|testing)(\.py|\.pyc|\.so|\.pyd|\.[^.]+\.(so|pyd))$/i;
/**
 * At most this much of the test folders' content is snapshotted for restoring (files past it are only kept
 * out of fresh grading): every snapshotted file is compared before each scoring run, ~0.15 ms (local) to
 * 0.25 ms (Docker) a file.
 */
const TREE_MAX_BYTES = 64 * 1024 * 1024;
const TREE_MAX_FILES = 5000;
const SKIPPED_DIRS = new Set(['.git', '__pycache__', '.pytest_cache']);
/** Files larger than this are not snapshotted (a test file never is). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const MAX_FILES = 20_000;

/** What the pristine repository holds that scoring protects. */
export interface PristineInventory {
  /** Configuration / plugin files the pristine repository has: these stay in place when scoring. */
  candidates: string[];
  /** Test files, configuration files and read-only files, with their pristine content. */
  files: Map<string, Uint8Array>;
  /** The pristine repository's symlinks: relative path -> target (what `readlink` says). */
  links: Record<string, string>;
  /**
   * Test folders (relative, no trailing slash): the nearest `tests/`, `test/` or `testing/` above a test
   * file. Everything in them is the tests' own (helpers, `__init__.py`, data, snapshots): restored before
   * scoring, and a file the pristine repository does not have there is set aside for the run.
   */
  trees: string[];
  /** Every file and symlink (not directory) of the pristine repository inside `trees`. */
  treeFiles: Set<string>;
  /**
   * The pristine repository's files named like a test folder's module (`tests.py`, `test.pyc`, ...). With
   * any tree, a file so named that is not one of these is set aside for the run: it would take over the
   * imports of a test folder without `__init__.py` (`from tests.helpers import ...`). Null when the walk
   * stopped at MAX_FILES (a list that may miss some would set pristine files aside): the rule is off.
   */
  shadowFiles: Set<string> | null;
  /** Bytes and count of tree files snapshotted so far (bounded by TREE_MAX_BYTES and TREE_MAX_FILES). */
  treeBytes: number;
  treeSnapshots: number;
}

/** An empty inventory. */
export function emptyInventory(): PristineInventory {
  return { candidates: [], files: new Map(), links: {}, trees: [], treeFiles: new Set(), shadowFiles: new Set(), treeBytes: 0, treeSnapshots: 0 };
}

/** A copy that can grow without changing `inventory` (a forked env's). */
export function copyInventory(inventory: PristineInventory): PristineInventory {
  return { ...inventory, candidates: [...inventory.candidates], files: new Map(inventory.files), links: { ...inventory.links }, trees: [...inventory.trees], treeFiles: new Set(inventory.treeFiles), shadowFiles: inventory.shadowFiles && new Set(inventory.shadowFiles) };
}

/** Is this path (relative to the working copy) one the agent's changes may not touch for scoring? */
export function isProtectedPath(inventory: PristineInventory, relative: string): boolean {
  if (inventory.files.has(relative) || inventory.trees.some((tree) => relative.startsWith(`${tree}/`))) return true;
  return inventory.trees.length > 0 && inventory.shadowFiles !== null && TEST_DIR_SHADOW.test(relative.split('/').pop() as string);
}

/**
 * Walk the repository on the host (the pristine copy, never changed) once per reset: the files
 * restored before every scoring run are the test files (pytest's default `test_*.py`/`*_test.py`,
 * plus those the first run collected tests from), every file of their test folders, pytest's
 * configuration files and the read-only files.
 */
export function readPristineInventory(hostDir: string, isReadonly: (relative: string) => boolean): PristineInventory {
  const inventory = emptyInventory();
  const testFiles: string[] = [];
  let seen = 0;
  const walk = (dir: string, prefix: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (++seen > MAX_FILES) return;
      const relative = prefix + entry.name;
      if (CONFIG_NAMES.has(entry.name) || SHADOW_NAMES.has(entry.name) || entry.name.endsWith('.pth')) inventory.candidates.push(relative);
      if (TEST_DIR_SHADOW.test(entry.name) && !entry.isDirectory()) inventory.shadowFiles?.add(relative);
      if (entry.isSymbolicLink()) {
        const target = linkTarget(join(dir, entry.name));
        if (target !== null) inventory.links[relative] = target;
      } else if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(dir, entry.name), `${relative}/`);
      } else if (entry.isFile() && (TEST_FILE.test(entry.name) || CONFIG_NAMES.has(entry.name) || isReadonly(relative))) {
        addPristineFile(inventory, hostDir, relative);
        if (TEST_FILE.test(entry.name)) testFiles.push(relative);
      }
    }
  };
  walk(hostDir, '');
  if (seen > MAX_FILES) inventory.shadowFiles = null;
  for (const file of testFiles) addTestTree(inventory, hostDir, file);
  return inventory;
}

/** The nearest folder named like a test folder above a test file (relative), or null (a test file beside the code). */
export function testTreeOf(testFile: string): string | null {
  const parts = testFile.split('/').slice(0, -1);
  for (let index = parts.length - 1; index >= 0; index -= 1) {
    if (TEST_DIR.test(parts[index] as string)) return parts.slice(0, index + 1).join('/');
  }
  return null;
}

/**
 * Protect the test folder of one test file (see PristineInventory.trees); symlinks are listed, not
 * followed. A folder of more than MAX_FILES entries is left as it is (only its test files are protected):
 * an incomplete listing would set pristine files aside.
 */
export function addTestTree(inventory: PristineInventory, hostDir: string, testFile: string): void {
  const tree = testTreeOf(testFile);
  if (tree === null || inventory.trees.some((known) => tree === known || tree.startsWith(`${known}/`))) return;
  const entries: Array<{ relative: string; regular: boolean }> = [];
  const walk = (prefix: string): boolean => {
    let listing;
    try {
      listing = readdirSync(join(hostDir, prefix), { withFileTypes: true });
    } catch {
      return true;
    }
    for (const entry of listing) {
      if (entries.length >= MAX_FILES) return false;
      const relative = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name) && !walk(relative)) return false;
      } else {
        entries.push({ relative, regular: entry.isFile() });
      }
    }
    return true;
  };
  if (!walk(tree)) return;
  inventory.trees = [...inventory.trees.filter((known) => !known.startsWith(`${tree}/`)), tree];
  for (const { relative, regular } of entries) {
    inventory.treeFiles.add(relative);
    if (!regular || inventory.files.has(relative)) continue;
    const size = fileSize(join(hostDir, relative));
    if (size <= MAX_FILE_BYTES && inventory.treeBytes + size <= TREE_MAX_BYTES && inventory.treeSnapshots < TREE_MAX_FILES) {
      addPristineFile(inventory, hostDir, relative);
      inventory.treeBytes += size;
      inventory.treeSnapshots += 1;
    }
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function linkTarget(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

/** Snapshot one more file of the pristine repository (a test file named outside pytest's default pattern). */
export function addPristineFile(inventory: PristineInventory, hostDir: string, relative: string): void {
  if (inventory.files.has(relative)) return;
  try {
    const path = join(hostDir, relative);
    const stat = statSync(path);
    if (stat.isFile() && stat.size <= MAX_FILE_BYTES) inventory.files.set(relative, readFileSync(path));
  } catch {
    // Not in the pristine repository (a test module setup created): nothing to restore it to.
  }
}

/**
 * Put every protected file back to its pristine content; compare first, write only what changed.
 * Returns the relative paths it restored.
 */
export async function restorePristineFiles(terminal: Terminal, files: ReadonlyMap<string, Uint8Array>): Promise<string[]> {
  const restored = await Promise.all(
    [...files].map(async ([relative, content]) => ((await matches(terminal, relative, content)) ? null : (await rewrite(terminal, relative, content), relative))),
  );
  return restored.filter((item): item is string => item !== null).sort();
}

async function matches(terminal: Terminal, relative: string, content: Uint8Array): Promise<boolean> {
  try {
    const stat = await terminal.stat(relative);
    if (stat?.type !== 'file' || stat.size !== content.byteLength) return false;
    const current = await terminal.readFile(relative, { maxBytes: content.byteLength });
    return Buffer.from(current).equals(Buffer.from(content));
  } catch {
    return false;
  }
}

async function rewrite(terminal: Terminal, relative: string, content: Uint8Array): Promise<void> {
  const stat = await terminal.stat(relative).catch(() => null);
  if (stat && stat.type !== 'file') await terminal.remove(relative);
  try {
    await terminal.writeFile(relative, content);
  } catch {
    // Made unwritable (chmod) or replaced by something odd: start over.
    await terminal.remove(relative);
    await terminal.writeFile(relative, content);
  }
}
