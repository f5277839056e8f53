/**
 * `env.fork()` on every backend: the fork starts in the original's state (files, breakpoints,
 * counters, last eval, pdb stopped at the same line), then the two diverge without seeing each other.
 */
import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnv } from './support/pdb-env.js';

const backends = await availableBackends();

const CALC: Record<string, string> = {
  'calc.py': 'def add(a, b):\n    total = a + b\n    return total\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
};

describe.each(backends)('env.fork() on $name', (backend) => {
  test('a fork starts where its original is, then neither sees the other; closing one leaves the other working', async () => {
    const original = await pdbEnv(backend, { files: CALC, evalOnReset: true });
    let fork: Awaited<ReturnType<typeof original.env.fork>> | undefined;
    try {
      await original.pdb('b calc.py:3');
      expect(await original.pdb('c')).toContain('calc.py:3');
      await original.pdb('p total');
      fork = await original.env.fork();
      expect(fork.forkWarnings).toEqual([]);
      expect(fork.breakpoints.list().map((bp) => `${bp.file.split('/').pop()}:${bp.line}`)).toEqual(['calc.py:3']);
      const step = async (name: string, args: Record<string, unknown>) => (await fork!.step({ name, arguments: args })).stepObservation.observation;
      // The replayed pdb session stopped at the same line, with the same values.
      expect(await step('pdb', { command: 'p total, a, b' })).toContain('(4, 2, 2)');
      const forkInfo = await fork.step({ name: 'pdb', arguments: { command: 'p 1' } });
      expect(forkInfo.stepCount).toBe(5);
      expect(forkInfo.score).toBe(1);
      expect(forkInfo.lastEval?.output).toContain('1 passed');

      // Diverge: the original edits a file and adds a breakpoint; the fork clears its breakpoints and writes a file.
      await original.step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: '    total = a - b' });
      await original.pdb('b calc.py:2');
      await step('pdb', { command: 'cl' });
      await fork.workspace.writeText('notes.py', 'x = 1\n');
      expect((await fork.workspace.readText('calc.py')).text).toContain('total = a + b');
      expect(await original.env.terminal.stat('notes.py')).toBeNull();
      expect(fork.breakpoints.list()).toEqual([]);
      expect(original.env.breakpoints.list().map((bp) => bp.line)).toEqual([2, 3]);
      expect((await fork.evaluate()).score).toBe(1);
      expect((await original.env.evaluate()).score).toBe(0);

      await fork.close();
      fork = undefined;
      expect(await original.pdb('p 6*7')).toContain('42');
      expect((await original.env.evaluate()).score).toBe(0);
    } finally {
      await fork?.close();
      await original.env.close();
    }
  });
});
