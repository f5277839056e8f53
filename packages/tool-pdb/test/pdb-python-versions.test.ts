import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { localBackend } from '@debug-gym/test-utils';
import { pdbEnvPerTest } from './support/pdb-env.js';

/** Interpreters 3.8–3.13 installed on this host (PATH, then pyenv); the driver must work with each. */
function hostInterpreters(): Array<{ version: string; python: string }> {
  const found: Array<{ version: string; python: string }> = [];
  const pyenv = join(process.env.PYENV_ROOT ?? join(homedir(), '.pyenv'), 'versions');
  const pyenvVersions = existsSync(pyenv) ? readdirSync(pyenv) : [];
  for (const version of ['3.8', '3.9', '3.10', '3.11', '3.12', '3.13']) {
    const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, `python${version}`));
    const inPyenv = pyenvVersions.filter((name) => name.startsWith(`${version}.`)).map((name) => join(pyenv, name, 'bin', `python${version}`));
    const python = [...inPyenv, ...onPath].find((candidate) => existsSync(candidate) && !candidate.includes('/shims/'));
    if (python) found.push({ version, python });
  }
  return found;
}

const local = localBackend;
const interpreters = hostInterpreters();
const APP = 'def f(x):\n    y = x * 2\n    return y\n\n\nprint("result", f(3))\n';

// Keeps the file non-empty when no interpreter is found.
if (interpreters.length === 0) test.skip('needs a host Python 3.8-3.13', () => {});

describe.skipIf(interpreters.length === 0).each(interpreters)('the pdb driver under Python $version', ({ python }) => {
  const open = pdbEnvPerTest(local);

  test('breakpoints, frames, listings, restarts after a rewrite and at program end', async () => {
    const current = await open({ files: { 'app.py': APP }, debugEntrypoint: `${python} -m pdb app.py` });
    const { pdb, step, workdir } = current;
    expect(current.reset.allObservations.find((item) => item.source === 'pdb')?.observation).toContain(`> ${workdir}/app.py(1)<module>()`);
    expect(await pdb('b app.py:3, x > 1')).toContain(`Breakpoint 1 at ${workdir}/app.py:3`);
    const hit = await pdb('c');
    expect(hit).toContain(`Current frame:\n${workdir}/app.py:3\n`);
    expect(hit).toContain('  3 B->\t    return y');
    expect(await pdb('p y')).toContain('Pdb command output:\n6\n');
    const rewrite = await step('rewrite_stub', { path: 'app.py', start: 2, end: 2, new_code: '    y = x * 5' });
    expect(rewrite.currentBreakpoints).toBe(`line 3 in ${workdir}/app.py if x > 1`);
    await pdb('c');
    expect(await pdb('p y')).toContain('Pdb command output:\n15\n');
    const end = await pdb('c');
    expect(end).toContain('result 15');
    expect(end).toContain('Reached the end of the program. Restarting the debugging session.');
    expect(end).toContain(`Current frame:\n${workdir}/app.py:1\n`);
    expect(current.seen.join('\n')).not.toMatch(/dg-pdb|base64/);
  });
});
