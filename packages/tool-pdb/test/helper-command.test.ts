import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { bootstrapProgram, helperCommand, inlineBootstrapProgram } from '../src/helper-command.js';
import { HELPER_SOURCE } from '../src/helper-source.generated.js';

test('the embedded driver is the one in src/python (run `node scripts/embed-helper.mjs` after editing it)', () => {
  expect(HELPER_SOURCE).toBe(readFileSync(new URL('../src/python/dg_pdb.py', import.meta.url), 'utf8'));
});

test('the bootstrap is safe inside double quotes', () => {
  const program = bootstrapProgram(true);
  expect(program).not.toMatch(/["$`\\!]/);
  expect(program.endsWith("g['main'](1,80)")).toBe(true);
  expect(bootstrapProgram(false).endsWith("g['main'](0,80)")).toBe(true);
});

test.each([
  ['python3 -m pdb -m pytest -sq .', "/py/bin/python -c 'def dg_pdb_source():", "' -m pytest -sq ."],
  ['python -m pdb app.py --flag', "/py/bin/python -c 'def dg_pdb_source():", "' app.py --flag"],
  ['cd sub && PYTHONPATH=. /py/bin/python -X dev -m pdb app.py', 'cd sub && PYTHONPATH=. /py/bin/python -X dev -c "import sys;', '" app.py'],
  ['bash -c "python -m pdb app.py"', 'bash -c "python -c "import sys;', '" app.py"'],
  ['pytest -x tests', "/py/bin/python -c 'def dg_pdb_source():", "' -m pytest -x tests"],
  ['python -m pdb', "/py/bin/python -c 'def dg_pdb_source():", "'"],
])('%j runs under the driver (inline when the command is `<python> -m pdb …`, compressed inside anything more)', (entrypoint, start, end) => {
  const built = helperCommand(entrypoint, '/py/bin/python', true);
  expect(built.ok).toBe(true);
  if (!built.ok) return;
  expect(built.command.startsWith(start)).toBe(true);
  expect(built.command.endsWith(end)).toBe(true);
});

test('the inline driver is the driver: the same source, in the body the program runs as its namespace', () => {
  const program = inlineBootstrapProgram(false);
  const body = program.split('\n').slice(2, -3).map((line) => line.replace(/^ {2}/, '')).join('\n');
  expect(body).toBe(HELPER_SOURCE.trimEnd());
  expect(program.endsWith("g['main'](0,80)")).toBe(true);
  // The fork server is handed the very program the shell command quotes.
  const built = helperCommand('python -m pdb -m pytest -q', 'python3', false);
  expect(built.ok && built.python?.args.slice(0, 2)).toEqual(['-c', program]);
  expect(built.ok && built.command).toBe(`python3 -c '${program.replace(/'/g, `'\\''`)}' -m pytest -q`);
});

test.each(['nonexistent-command-that-should-fail', 'bash run.sh', 'python -m pdbx app.py'])('%j is refused with the accepted forms', (entrypoint) => {
  const built = helperCommand(entrypoint, '/py/bin/python', true);
  expect(built).toEqual({ ok: false, reason: expect.stringContaining('does not run Python under pdb') });
});
