import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnvPerTest } from './support/pdb-env.js';

const backends = await availableBackends();
/** What `l .` prints for a file at line 1 (pdb's `_print_lines` layout), for a file of up to 11 lines. */
function listingAtFirstLine(source: string): string {
  const lines = source.replace(/\n$/, '').split('\n');
  const body = lines.map((line, index) => `${String(index + 1).padStart(3)} ${index === 0 ? ' ->' : ' '}\t${line.trimEnd()}`);
  return [...body, ...(lines.length < 11 ? ['[EOF]'] : [])].join('\n');
}

describe.each(backends)('pdb commands on $name', (backend) => {
  const open = pdbEnvPerTest(backend);

  test('the reset starts pdb at the pytest entry point and reports it without the prompt', async () => {
    const { reset } = await open();
    const start = reset.allObservations.find((item) => item.source === 'pdb')?.observation ?? '';
    expect(start).toMatch(/^Starting pdb session with entrypoint: \S+ -m pdb -m pytest -sq \.\n/);
    expect(start).toContain('The pytest entry point.');
    expect(start).not.toContain('(Pdb)');
    expect(start).not.toContain('dg-pdb');
  });

  test('l lists the entry point and leaves out the automatic context', async () => {
    const { pdb } = await open();
    const text = await pdb('l');
    expect(text).toContain('  1  ->\t"""The pytest entry point."""');
    expect(text).toContain('Current frame:\n');
    expect(text).not.toContain('Context around the current frame');
  });

  test('c runs the tests to the end, keeps their summary and restarts the program', async () => {
    const { pdb } = await open();
    const text = await pdb('c');
    expect(text).toContain('1 failed, 1 passed');
    expect(text).toContain('FAILED test_fail.py::test_fail');
    expect(text).toContain('Reached the end of the program. Restarting the debugging session.');
    expect(text).toContain('pytest/__main__.py');
    expect(text).toContain('-> """The pytest entry point."""');
    expect(text).not.toContain('The program exited via sys.exit()');
    expect(text).toContain('\n=========================== short test summary info ============================\n');
  });

  test('an empty or blank command is refused', async () => {
    const { pdb } = await open();
    expect(await pdb('')).toBe('Failure calling pdb:\nEmpty commands are not allowed.');
    expect(await pdb('   ')).toBe('Failure calling pdb:\nEmpty commands are not allowed.');
  });

  test('a breakpoint on a docstring line is an invalid line and sets nothing', async () => {
    const { pdb, step } = await open();
    expect(await pdb('b 1')).toBe('Invalid pdb command: b 1\nInvalid line number: *** Blank or comment.');
    expect((await step('pdb', { command: 'p 1' })).breakpoints).toEqual([]);
  });

  test.each(['b file1.py:100', 'b file1.py:-100'])('%s is past the end of the file', async (command) => {
    const { pdb } = await open();
    expect(await pdb(command)).toBe(`Invalid pdb command: ${command}\nInvalid line number: End of file.`);
  });

  test('a breakpoint is set, hit, and a bare line number then applies to the current file', async () => {
    const { pdb, workdir } = await open();
    expect(await pdb('b test_pass.py:1')).toMatch(new RegExp(`^Pdb command output:\\nBreakpoint 1 at ${workdir}/test_pass.py:1\\n`));
    const hit = await pdb('c');
    expect(hit).toContain('  1 B->\tdef test_pass():');
    expect(hit).toContain(`Current frame:\n${workdir}/test_pass.py:1\n`);
    expect(await pdb('b 2')).toContain(`Breakpoint 2 at ${workdir}/test_pass.py:2`);
  });

  test('b alone lists the env breakpoints, then the frame and its context', async () => {
    const { pdb, env } = await open();
    const text = await pdb('b');
    const entry = /^Current frame:\n(\S+\/pytest\/__main__\.py):1$/m.exec(text)?.[1] ?? '';
    const source = Buffer.from(await env.terminal.readFile(entry)).toString('utf8');
    expect(text).toBe(
      `Breakpoints:\nNo breakpoints are set.\n\nCurrent frame:\n${entry}:1\n\nContext around the current frame:\n${listingAtFirstLine(source)}\n`,
    );
  });

  test('breakpoints are kept in the env store, including duplicates only once', async () => {
    const { pdb, step, workdir } = await open();
    for (const command of ['b file1.py:10', 'b file1.py:20', 'b file1.py:30', 'b file2.py:15']) await pdb(command);
    expect(await pdb(`b ${workdir}/file1.py:25`)).toContain(`Breakpoint 5 at ${workdir}/file1.py:25`);
    const again = await step('pdb', { command: 'b file1.py:10' });
    expect(again.stepObservation.observation).toContain(`Breakpoint 6 at ${workdir}/file1.py:10`);
    expect(again.currentBreakpoints).toBe(
      [10, 20, 25, 30].map((line) => `line ${line} in ${workdir}/file1.py`).concat(`line 15 in ${workdir}/file2.py`).join('\n'),
    );
  });

  test('cl with a location deletes one breakpoint; an unknown one is reported by pdb', async () => {
    const { pdb, step, workdir } = await open();
    for (const command of ['b file1.py:10', 'b file1.py:20']) await pdb(command);
    expect(await pdb('cl file1.py:20')).toMatch(new RegExp(`^Pdb command output:\\nDeleted breakpoint 2 at ${workdir}/file1.py:20\\n\\nCurrent frame:`));
    const missing = await step('pdb', { command: 'cl file1.py:8' });
    expect(missing.stepObservation.observation).toContain(`*** There is no breakpoint at ${workdir}/file1.py:8`);
    expect(missing.currentBreakpoints).toBe(`line 10 in ${workdir}/file1.py`);
  });

  test('cl alone clears every breakpoint in the store and in pdb, keeping the position', async () => {
    const { pdb, step } = await open();
    await pdb('b test_fail.py:2');
    const cleared = await step('pdb', { command: 'cl' });
    expect(cleared.stepObservation.observation).toMatch(/^All breakpoints have been cleared\.\n\nCurrent frame:\n\S+pytest\/__main__\.py:1\n/);
    expect(cleared.breakpoints).toEqual([]);
    const ran = await pdb('c');
    expect(ran).toContain('Reached the end of the program');
    expect(ran).not.toContain('test_fail.py(2)');
  });

  test('only the first of several commands runs, with a warning; print commands are sent whole', async () => {
    const { pdb, workdir } = await open();
    const text = await pdb('b file1.py:1; b file1.py:2; b file1.py:3');
    expect(text).toMatch(/^Multiple commands are not supported\. Only the first command will be executed\.\nPdb command output:\nBreakpoint 1 at /);
    expect(text).not.toContain('Breakpoint 2');
    expect(await pdb('p "a;b"')).toContain("Pdb command output:\n'a;b'");
    const two = await pdb('p 1+1\np 2+2');
    expect(two).toMatch(/^Pdb command output:\n2\n4\n/);
    expect(two).not.toContain('Multiple commands');
    expect(await pdb('b file1.py:4\nc')).toContain(`Breakpoint 2 at ${workdir}/file1.py:4`);
  });

  test("pdb's own errors come back as command output", async () => {
    const { pdb } = await open();
    expect(await pdb('b notafile.py:1')).toMatch(/^Pdb command output:\n\*\*\* 'notafile\.py' not found from sys\.path\n\nCurrent frame:/);
    expect(await pdb('invalid')).toContain("*** NameError: name 'invalid' is not defined");
    expect(await pdb('foo file1.py:1')).toMatch(/^Pdb command output:\n\*\*\* SyntaxError: invalid syntax/);
  });

  test('the current frame follows the program, with its line', async () => {
    const { pdb, workdir } = await open();
    expect(await pdb('b test_fail.py:2')).toMatch(/Current frame:\n\S+pytest\/__main__\.py:1\n/);
    const hit = await pdb('c');
    expect(hit).toContain(`Current frame:\n${workdir}/test_fail.py:2\n`);
    expect(hit).toContain(`> ${workdir}/test_fail.py(2)test_fail()`);
    expect(hit).toContain('  2 B->\t    assert False');
  });

  test('listings of long files stay aligned across line-number widths', async () => {
    const big = `${Array.from({ length: 2003 }, (_, index) => `x_${index + 1} = ${index + 1}`).join('\n')}\n`;
    const { pdb } = await open({ files: { 'big.py': big, 'test_big.py': 'def test_big():\n    import big\n' } });
    for (const line of [100, 1000, 2000]) await pdb(`b big.py:${line}`);
    const first = await pdb('c');
    expect(first).toContain(' 95  \tx_95 = 95');
    expect(first).toContain('100 B->\tx_100 = 100');
    const second = await pdb('c');
    expect(second).toContain('995  \tx_995 = 995');
    expect(second).toContain('1000B->\tx_1000 = 1000');
    const third = await pdb('c');
    expect(third).toContain('1995 \tx_1995 = 1995');
    expect(third).toContain('2000B->\tx_2000 = 2000');
    expect(third).toContain('[EOF]');
  });

  test('conditional, temporary and disabled breakpoints are reported in the store', async () => {
    const { step, pdb, workdir } = await open();
    await pdb('b file1.py:5, i > 3');
    await pdb('tbreak file1.py:6');
    await pdb('b file1.py:7');
    const info = await step('pdb', { command: 'disable 3' });
    expect(info.currentBreakpoints).toBe(
      [`line 5 in ${workdir}/file1.py if i > 3`, `line 6 in ${workdir}/file1.py (temporary)`, `line 7 in ${workdir}/file1.py (disabled)`].join('\n'),
    );
  });

  test('auto-listing can be turned off', async () => {
    const { pdb } = await open({ pdb: { autoList: false } });
    const text = await pdb('p 1');
    expect(text).toMatch(/^Pdb command output:\n1\n\nCurrent frame:\n\S+:1\n$/);
  });

  test('observations carry no carriage returns, ANSI escapes or protocol markers', async () => {
    const session = await open();
    for (const command of ['b test_fail.py:2', 'c', 'where', 'n', 'c', 'l', 'b']) await session.pdb(command);
    const all = session.seen.join('\n');
    expect(all).not.toMatch(/\r|\u001b/);
    expect(all).not.toContain('dg-pdb');
  });

  test('a test printing megabytes is cut by the output cap and the episode goes on', async () => {
    const { pdb } = await open({
      files: { 'test_loud.py': 'def test_loud():\n    print("x" * 5_000_000)\n    assert False\n' },
      maxOutputChars: 20_000,
    });
    const text = await pdb('c');
    expect(text.length).toBeLessThan(25_000);
    expect(text.includes('output truncated')).toBe(true);
    expect(text).toMatch(/Current frame:\n\S+pytest\/__main__\.py:1\n/);
    expect(await pdb('p 6*7')).toContain('Pdb command output:\n42');
  });

  test('commands pdb cannot answer here are refused up front', async () => {
    const { pdb } = await open();
    expect(await pdb('interact')).toMatch(/^Invalid pdb command: interact\nThe `interact` command is not supported here/);
    const long = `p ${'1+'.repeat(2500)}1`;
    expect(await pdb(long)).toMatch(/^Invalid pdb command: p 1\+1\+.*…\nThe command is too long \(5003 characters; at most 4000\)\.$/);
    expect(await pdb('p 6*7')).toContain('42');
  });
});
