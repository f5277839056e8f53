/**
 * pdb sessions started by the sandbox's fork server against cold ones, on every backend: the same
 * observations for the same episode (reset, breakpoints, continue, print, a rewrite's restart).
 */
import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnv } from './support/pdb-env.js';

const backends = await availableBackends();

const CALC: Record<string, string> = {
  'calc.py': 'import os\n\ndef add(a, b):\n    total = a + b\n    return total\n',
  'test_calc.py': 'import sys\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_env():\n    assert "pytest" in sys.modules\n',
};

const EPISODE: Array<[string, Record<string, unknown>]> = [
  ['pdb', { command: 'b calc.py:5' }],
  ['pdb', { command: 'c' }],
  ['pdb', { command: 'p total, sorted(k for k in os.environ if k.startswith("DG_"))' }],
  ['rewrite_stub', { path: 'calc.py', start: 4, end: 4, new_code: '    total = a + b  # changed' }],
  ['pdb', { command: 'c' }],
];

describe.each(backends)('pdb through the fork server on $name', (backend) => {
  test('an episode shows the same observations as with cold pdb starts, and says which path ran', async () => {
    const runs = [];
    for (const forkServer of [true, false]) {
      const current = await pdbEnv(backend, { files: CALC, forkServer, entrypoint: 'python -m pytest -sq .' });
      try {
        const texts = [current.reset.allObservations.map((item) => item.observation).join('\n')];
        const launches = [current.reset.launches];
        for (const [name, args] of EPISODE) {
          const info = await current.step(name, args);
          texts.push(info.stepObservation.observation);
          launches.push(info.launches);
        }
        runs.push({ texts: texts.map((text) => text.split(current.workdir).join('<workdir>').replace(/ in \d+\.\d+s/g, ' in Ns')), launches });
      } finally {
        await current.env.close();
      }
    }
    const [forked, cold] = runs;
    expect(forked?.texts).toEqual(cold?.texts);
    expect(cold?.texts[2]).toContain('calc.py:5');
    expect(forked?.launches[0]).toEqual([expect.objectContaining({ source: 'pdb', via: 'fork-server' })]);
    expect(forked?.launches[4]).toEqual([expect.objectContaining({ source: 'pdb', via: 'fork-server' })]);
    expect(cold?.launches.flat()).toEqual([]);
  });
});
