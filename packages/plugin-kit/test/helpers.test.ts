import { UnknownTaskError, type DirEntry, type EnvInfo, type ToolCall, type TreeEntry } from '@debug-gym/spec';
import { describe, expect, it } from 'vitest';
import { formatTree, runSolution, selectTasks, walkTree, type SolutionEnv } from '../src/index.js';

const file = (name: string, executable = false): DirEntry => ({ name, type: 'file', executable });
const dir = (name: string): DirEntry => ({ name, type: 'directory', executable: false });

describe('walkTree', () => {
  const tree: Record<string, DirEntry[]> = {
    '/w': [file('b.py'), dir('src'), file('a.py')],
    '/w/src': [dir('deep'), file('m.py')],
    '/w/src/deep': [file('x.py')],
  };
  const readDir = async (absolute: string): Promise<DirEntry[]> => tree[absolute] ?? [];

  it('yields entries depth first, sorted by name, down to maxDepth', async () => {
    const seen: string[] = [];
    for await (const entry of walkTree(readDir, { absolute: '/w', relative: '' }, { maxDepth: 2 })) seen.push(`${entry.depth}:${entry.relative}`);
    expect(seen).toEqual(['1:a.py', '1:b.py', '1:src', '2:src/deep', '2:src/m.py']);
  });

  it('leaves out skipped entries and does not enter refused directories', async () => {
    const seen: string[] = [];
    const walk = walkTree(readDir, { absolute: '/w', relative: '' }, { maxDepth: 5, skip: (entry) => entry.name === 'b.py', descend: (entry) => entry.name !== 'deep' });
    for await (const entry of walk) seen.push(entry.relative);
    expect(seen).toEqual(['a.py', 'src', 'src/deep', 'src/m.py']);
  });
});

describe('formatTree', () => {
  const entry = (relative: string, depth: number, type: TreeEntry['type'], extra: Partial<TreeEntry> = {}): TreeEntry => ({
    name: relative.split('/').pop() ?? relative,
    relative,
    depth,
    type,
    executable: false,
    readonly: false,
    ...extra,
  });

  it('prints the original listdir format', () => {
    const entries = [entry('src', 1, 'directory'), entry('src/run.sh', 2, 'file', { executable: true }), entry('test.py', 1, 'file', { readonly: true })];
    expect(formatTree('/w', entries)).toBe('/w/\n|-- src/\n  |-- run.sh*\n|-- test.py (read-only)');
  });

  it('says how many entries a cut listing leaves out', () => {
    const entries = [entry('a.py', 1, 'file'), entry('b.py', 1, 'file')];
    expect(formatTree('/w/', entries, { maxChars: 12, omitted: 3 })).toBe(
      '/w/\n|-- a.py\n... 4 more entries not shown (list a subdirectory, or a smaller depth, to see them).',
    );
  });
});

describe('selectTasks', () => {
  const tasks = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];

  it('keeps every task without ids, and the named ones in the given order', () => {
    expect(selectTasks('demo', tasks, undefined)).toEqual(tasks);
    expect(selectTasks('demo', tasks, ['c', 'a', 'c'])).toEqual([{ id: 'c' }, { id: 'a' }]);
  });

  it('names the unknown ids', () => {
    expect(() => selectTasks('demo', tasks, ['a', 'zz'])).toThrow(UnknownTaskError);
  });
});

describe('runSolution', () => {
  it('replays the calls, then evaluates, and reports the calls that failed', async () => {
    const info = (name: string | null, observation: string, source = name ?? 'env'): EnvInfo =>
      ({ stepObservation: { source, observation }, actionToolCall: name ? { name } : null, resolved: name === 'eval' }) as EnvInfo;
    const env: SolutionEnv = {
      reset: async () => info(null, 'start'),
      step: async (call: ToolCall) => (call.name === 'nope' ? info('nope', 'Unknown tool nope', 'env') : call.name === 'rewrite' ? info('rewrite', 'Edit failed: no such line') : info(call.name, 'ok')),
    };
    const run = await runSolution(env, [{ name: 'rewrite' }, { name: 'view' }, { name: 'nope' }]);
    expect(run.steps).toHaveLength(4);
    expect(run.failedCalls.map((failed) => failed.call.name)).toEqual(['rewrite', 'nope']);
    expect(run.info.resolved).toBe(true);
  });
});
