import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { HIDDEN_FRAME_TEXT, HIDDEN_SOURCE_LINE } from '../src/hidden-files.js';
import { pdbEnvPerTest, type PdbEnv } from './support/pdb-env.js';

const backends = await availableBackends();

/** `secret.py` and `vendor/` are hidden; the code under test calls into them. */
const REPO: Record<string, string> = {
  '.debugignore': 'secret.py\nvendor/\n',
  'secret.py': 'def compute(x):\n    hidden_value = x * 3\n    return hidden_value\n',
  'vendor/helper.py': 'def helper():\n    return "vendored"\n',
  'calc.py': 'from secret import compute\n\n\ndef run(x):\n    return compute(x) + 1\n',
  'test_calc.py': 'from calc import run\n\n\ndef test_run():\n    assert run(1) == 4\n',
};

describe.each(backends)('pdb and .debugignore on $name', (backend) => {
  const open = pdbEnvPerTest(backend, { files: REPO });
  /** Stop in `run`, the frame that calls into the hidden module. */
  const stopInRun = async (session: PdbEnv): Promise<void> => {
    await session.pdb('b calc.py:5');
    await session.pdb('c');
  };

  test('breakpoints in hidden files are refused like missing files', async () => {
    const { pdb, step, workdir } = await open();
    expect(await pdb('b secret.py:2')).toBe(
      `Invalid pdb command: b secret.py:2\n\`secret.py\` does not exist or is not in the working directory \`${workdir}\`.`,
    );
    expect(await pdb(`tbreak ${workdir}/vendor/helper.py:2`)).toContain('does not exist or is not in the working directory');
    expect((await step('pdb', { command: 'cl secret.py:2' })).breakpoints).toEqual([]);
  });

  test('a breakpoint that pdb resolves into a hidden file is taken back', async () => {
    const session = await open();
    await stopInRun(session);
    const info = await session.step('pdb', { command: 'b compute' });
    expect(info.stepObservation.observation).toBe('Invalid pdb command: b compute\nBreakpoints cannot be set in files hidden from this task (.debugignore).');
    expect(info.currentBreakpoints).not.toContain('secret.py');
    expect(await session.pdb('c')).toContain('Reached the end of the program');
  });

  test('stepping into a hidden file shows where, never what', async () => {
    const session = await open();
    await stopInRun(session);
    const stepped = await session.pdb('s');
    expect(stepped).toContain(`> ${session.workdir}/secret.py(1)compute()\n${HIDDEN_SOURCE_LINE}`);
    expect(stepped).toContain(`Current frame:\n${session.workdir}/secret.py:1\n\nContext around the current frame:\n${HIDDEN_FRAME_TEXT}\n`);
    expect(await session.pdb('l')).toBe('Invalid pdb command: l\nThe current frame is in a file hidden from this task (.debugignore); its source cannot be listed.');
    expect(await session.pdb('ll')).toContain('its source cannot be listed');
    expect(await session.pdb('n')).toContain(`${session.workdir}/secret.py:2\n`);
    expect(await session.pdb('where')).toContain(HIDDEN_SOURCE_LINE);
    expect(session.seen.join('\n')).not.toContain('hidden_value');
  });

  test('source of an object defined in a hidden file is refused', async () => {
    const session = await open();
    await stopInRun(session);
    expect(await session.pdb('source compute')).toBe('Invalid pdb command: source compute\nThat source is in a file hidden from this task (.debugignore).');
    expect(await session.pdb('source run')).toContain('return compute(x) + 1');
    expect(session.seen.join('\n')).not.toContain('hidden_value');
  });
});
