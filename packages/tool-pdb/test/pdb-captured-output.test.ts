import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnvPerTest } from './support/pdb-env.js';

const backends = await availableBackends();

const FILES = {
  'calc.py': 'def add(a, b):\n    print("adding", end="")\n    total = a + b\n    return total\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    print("in test_add")\n    assert add(2, 2) == 5\n\n\ndef test_other():\n    assert add(1, 2) == 3\n',
};

describe.each(backends)('pdb under pytest with output capture on $name', (backend) => {
  const open = pdbEnvPerTest(backend, { files: FILES });

  test('a breakpoint stops the captured test, and pdb answers each command in turn without leaking its state', async () => {
    // No `-s`: pytest points fds 0 and 1 at /dev/null and a capture file while a test runs. pdb used to
    // write its prompt into that capture and read EOF (BdbQuit); pytest's report then replayed the
    // prompt and its state block, which could end a read early and shift every later answer by one.
    const { pdb, workdir, seen } = await open({ entrypoint: 'python -m pytest test_calc.py' });
    await pdb('b calc.py:3');
    const hit = await pdb('c');
    expect(hit).toContain(`Current frame:\n${workdir}/calc.py:3\n`);
    expect(hit).not.toContain('BdbQuit');
    expect(await pdb('p a, b')).toContain('Pdb command output:\n(2, 2)\n');
    expect(await pdb('n')).toContain(`Current frame:\n${workdir}/calc.py:4\n`);
    expect(await pdb('p total')).toContain('Pdb command output:\n4\n');
    expect(await pdb('c')).toContain(`Current frame:\n${workdir}/calc.py:3\n`);
    expect(await pdb('p a, b')).toContain('Pdb command output:\n(1, 2)\n');
    const end = await pdb('c');
    expect(end).toContain('1 failed, 1 passed');
    expect(end).toContain('Reached the end of the program. Restarting the debugging session.');
    expect(await pdb('p "after"')).toContain("Pdb command output:\n'after'\n");
    for (const observation of seen) expect(observation).not.toContain('dg-pdb-state');
  });

  test("the program's unfinished output line comes before pdb's answer", async () => {
    const { pdb, workdir } = await open({ entrypoint: 'python -m pytest -s test_calc.py' });
    await pdb('b calc.py:3');
    expect(await pdb('c')).toContain(`in test_add\nadding> ${workdir}/calc.py(3)add()\n`);
    expect(await pdb('!print("partial", end="")')).toContain('Pdb command output:\npartial\n');
    expect(await pdb('p a')).toContain('Pdb command output:\n2\n');
  });
});
