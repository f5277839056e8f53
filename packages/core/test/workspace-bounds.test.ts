import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localBackend, type Backend, createTestEnv } from '../../../tools/test-utils/src/index.js';
import { FileTooLargeError, defineToolPlugin, walkTree, type DirEntry } from '../src/index.js';

const local: Backend = localBackend;

const looker = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'looker',
  changesFiles: false,
  description: 'Looks.',
  parameters: { type: 'object', properties: {} },
  create: () => ({ run: async () => 'looked' }),
});

describe('workspace bounds (local)', () => {
  const files = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, '0')}.py`, 'x = 1\n']));
  const env = createTestEnv(local, { files: { ...files, 'big.txt': 'y'.repeat(5000), 'sub/a.py': '' }, tools: [looker], evalOnReset: false, dirTreeMaxEntries: 10 });
  beforeAll(() => env.reset());
  afterAll(() => env.close());

  it('readText refuses a file over its cap under the path the agent gave, and over the workspace default', async () => {
    const read = env.workspace.readText('big.txt', { maxBytes: 4096 });
    await expect(read).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(read).rejects.toThrow('`big.txt` is too large to read (4.9 KiB; the limit is 4.0 KiB).');
    expect((await env.workspace.readText('big.txt', { maxBytes: 5000 })).text).toHaveLength(5000);
  });

  it('info.dirTree lists at most dirTreeMaxEntries entries and says how many more there are', async () => {
    const info = await env.step({ name: 'looker' });
    const lines = info.dirTree.split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[11]).toBe('... 22 more entries not shown (list a subdirectory, or a smaller depth, to see them).');
  });

  it('listTree stops reading folders once full but counts the rest of the folders it read', async () => {
    const listing = await env.workspace.listTree('.', 5, { maxEntries: 33 });
    expect(listing.entries.map((entry) => entry.relative).slice(-2)).toEqual(['sub', 'sub/a.py']);
    expect(listing.omitted).toBe(0);
    const cut = await env.workspace.listTree('.', 5, { maxEntries: 3 });
    expect(cut.omitted).toBe(29);
  });
});

describe('walkTree', () => {
  const tree: Record<string, DirEntry[]> = {
    '/r': [
      { name: 'b', type: 'directory', executable: false },
      { name: 'a.py', type: 'file', executable: false },
      { name: 'gone', type: 'directory', executable: false },
    ],
    '/r/b': [{ name: 'c', type: 'directory', executable: false }],
    '/r/b/c': [{ name: 'd.py', type: 'file', executable: false }],
  };
  const readDir = async (path: string): Promise<DirEntry[]> => {
    const entries = tree[path];
    if (!entries) throw new FileTooLargeError(path, 0, 0); // any workspace error: the folder vanished
    return [...entries];
  };

  it('yields depth first, sorted, treats a vanished folder as empty and stops at maxDepth', async () => {
    const seen: string[] = [];
    for await (const entry of walkTree(readDir, { absolute: '/r', relative: '' }, { maxDepth: 2 })) seen.push(`${entry.depth}:${entry.relative}`);
    expect(seen).toEqual(['1:a.py', '1:b', '2:b/c', '1:gone']);
  });

  it('passes other failures on (a dead sandbox)', async () => {
    const dead = async (): Promise<DirEntry[]> => {
      throw new Error('sandbox gone');
    };
    const walk = async (): Promise<void> => {
      for await (const _entry of walkTree(dead, { absolute: '/r', relative: '' }, { maxDepth: 2 })) void _entry;
    };
    await expect(walk()).rejects.toThrow('sandbox gone');
  });
});

describe('an oversized rules file (local)', () => {
  const env = createTestEnv(local, { files: { '.debugignore': `${'#'.repeat(1024 * 1024)}\nsecret.py\n`, 'secret.py': 'TOKEN = 1\n' }, evalOnReset: false });
  afterAll(() => env.close());

  it('fails the reset instead of ignoring the rules (which would reveal what they hide)', async () => {
    await expect(env.reset()).rejects.toBeInstanceOf(FileTooLargeError);
  });
});
