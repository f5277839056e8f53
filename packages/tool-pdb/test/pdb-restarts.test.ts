import { describe, expect, test } from 'vitest';
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnvPerTest } from './support/pdb-env.js';

const backends = await availableBackends();

/** A function under test, called from a test: breakpoints in `calc.py` are hit during `c`. */
const CALC: Record<string, string> = {
  'calc.py': 'def add(a, b):\n    total = a + b\n    return total\n\n\ndef double(x):\n    result = add(x, x)\n    return result\n',
  'test_calc.py': 'from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n',
};

describe.each(backends)('pdb restarts on $name', (backend) => {
  const open = pdbEnvPerTest(backend, { files: CALC });

  test('a rewrite restarts pdb on the new code, says so in the step, and moves the breakpoints', async () => {
    const { pdb, step, workdir } = await open();
    await pdb('b calc.py:3');
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: '    total = a + b + 100\n    total -= 1' });
    const note = rewrite.stepObservation.observation;
    expect(note).toContain('Debugging terminal started:\nStarting pdb session with entrypoint: ');
    expect(note).toContain('Breakpoints have been restored.');
    expect(rewrite.currentBreakpoints).toBe(`line 4 in ${workdir}/calc.py`);
    expect(await pdb('c')).toContain(`Current frame:\n${workdir}/calc.py:4\n`);
    expect(await pdb('p total')).toContain('Pdb command output:\n103\n');
  });

  test('rewriting the line that holds a breakpoint removes it, in the env and in pdb', async () => {
    const { pdb, step, workdir } = await open();
    await pdb('b calc.py:2');
    await pdb('b calc.py:7');
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: '    total = a + b\n    total += 0' });
    expect(rewrite.currentBreakpoints).toBe(`line 8 in ${workdir}/calc.py`);
    expect(await pdb('b')).toContain(`Breakpoints:\nline 8 in ${workdir}/calc.py\n`);
    expect(await pdb('c')).toContain(`Current frame:\n${workdir}/calc.py:8\n`);
    expect(await pdb('c')).toContain('Reached the end of the program');
  });

  test('conditional, temporary and disabled breakpoints survive a restart', async () => {
    const { pdb, step, workdir } = await open();
    await pdb('b calc.py:3, a > 1');
    await pdb('tbreak calc.py:7');
    await pdb('b calc.py:8');
    await pdb('disable 3');
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 1, end: 1, new_code: '# adds\ndef add(a, b):' });
    expect(rewrite.currentBreakpoints).toBe(
      [`line 4 in ${workdir}/calc.py if a > 1`, `line 8 in ${workdir}/calc.py (temporary)`, `line 9 in ${workdir}/calc.py (disabled)`].join('\n'),
    );
    expect(await pdb('c')).toContain(`Current frame:\n${workdir}/calc.py:8\n`);
    const second = await step('pdb', { command: 'c' });
    expect(second.stepObservation.observation).toContain(`Current frame:\n${workdir}/calc.py:4\n`);
    expect(second.currentBreakpoints).not.toContain('temporary');
  });

  test('a rewritten script is rerun from its new source even when it was loaded before the first prompt', async () => {
    const files = { 'app.py': 'value = 1\nprint("value is", value)\n' };
    const { pdb, step } = await open({ files, debugEntrypoint: 'python -m pdb app.py' });
    expect(await pdb('c')).toContain('value is 1');
    await step('rewrite_stub', { path: 'app.py', start: 1, end: 1, new_code: 'value = 2' });
    expect(await pdb('c')).toContain('value is 2');
  });

  test('at the end of the program pdb starts it again and keeps the breakpoints', async () => {
    const { pdb, workdir } = await open();
    await pdb('b calc.py:3');
    await pdb('c');
    expect(await pdb('c')).toContain('Reached the end of the program. Restarting the debugging session.');
    expect(await pdb('c')).toContain(`Current frame:\n${workdir}/calc.py:3\n`);
  });

  test('an uncaught exception enters post-mortem debugging at the failing line', async () => {
    const files = { 'crash.py': 'def f(x):\n    return 1 / x\n\nf(0)\n' };
    const { pdb, workdir } = await open({ files, debugEntrypoint: 'python -m pdb crash.py' });
    const text = await pdb('c');
    expect(text).toContain('ZeroDivisionError');
    expect(text).toContain('Uncaught exception. Entering post mortem debugging');
    expect(text).toContain(`Current frame:\n${workdir}/crash.py:2\n`);
    expect(await pdb('p x')).toContain('Pdb command output:\n0\n');
  });

  test('a custom entrypoint starts a new session and is kept for later restarts', async () => {
    const { pdb } = await open();
    const verbose = 'python -m pdb -m pytest -sv .';
    const first = await pdb('c', verbose);
    // As in the original, the restart's own text is discarded: the answer is the command's.
    expect(first).toMatch(/^Pdb command output:\n/);
    expect(first).not.toContain('Starting pdb session');
    expect(first).toContain('test_calc.py::test_double PASSED');
    const afterQuit = await pdb('q');
    expect(afterQuit).toContain('so the session was restarted');
    expect(afterQuit).toContain(`Starting pdb session with entrypoint: ${verbose}`);
    expect(await pdb('c')).toContain('PASSED');
  });

  test('an entrypoint that cannot start pdb is reported and the next call goes back to the default', async () => {
    const { pdb } = await open();
    expect(await pdb('l', 'nonexistent-command-that-should-fail')).toMatch(/^Provided entrypoint failed to start a pdb session:\n/);
    const missing = await pdb('l', 'python -m pdb missing_script.py');
    expect(missing).toMatch(/^Provided entrypoint failed to start a pdb session:\n/);
    expect(missing).toContain('missing_script.py');
    const back = await pdb('p 1+1');
    expect(back).toMatch(/^Starting pdb session with entrypoint: \S+ -m pdb -m pytest -sq \.\n/);
    expect(back).toContain('Pdb command output:\n2\n');
  });

  test('without a default entrypoint, calls must name one and reset starts nothing', async () => {
    const { pdb, reset } = await open({ pdb: { setDefaultEntrypoint: false } });
    expect(reset.allObservations.some((item) => item.source === 'pdb')).toBe(false);
    // The model is told so, as in the original: `entrypoint` is a required string, not nullable.
    const schema = reset.tools.find((tool) => tool.function.name === 'pdb')?.function;
    expect(schema?.parameters.required).toEqual(['command', 'entrypoint']);
    expect(schema?.parameters.properties.entrypoint).toEqual({ type: 'string', description: 'The entrypoint command to start the pdb session. Must be provided when using the pdb tool.' });
    expect(schema?.description.endsWith('\nNote: When using the pdb tool, an entrypoint must be provided.')).toBe(true);
    expect(await pdb('l', null)).toBe('Failure calling pdb:\nAn entrypoint must be provided when using the pdb tool.');
    expect(await pdb('l')).toBe('Failure calling pdb:\nAn entrypoint must be provided when using the pdb tool.');
    expect(await pdb('l', 'python -m pdb -m pytest -sv .')).toContain('"""The pytest entry point."""');
  });

  test('without persistent breakpoints a restart starts clean', async () => {
    const { pdb, step } = await open({ pdb: { persistentBreakpoints: false } });
    await pdb('b calc.py:3');
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 1, end: 1, new_code: 'def add(a, b):' });
    expect(rewrite.stepObservation.observation).not.toContain('Breakpoints have been restored.');
    expect(rewrite.breakpoints).toEqual([]);
    expect(await pdb('c')).toContain('Reached the end of the program');
  });

  /**
   * The time limit (runTimeout) for the next calls: short only around the commands that must run into it,
   * so that no other call (the session's start, a `p`) is held to it on a loaded machine.
   */
  function limit(env: { settings: { runTimeoutMs: number } }, seconds: number): void {
    env.settings.runTimeoutMs = seconds * 1000;
  }

  test('a command that runs past the time limit is interrupted and the session stays usable', async () => {
    const files = { ...CALC, 'test_loop.py': 'def test_loop():\n    n = 0\n    while True:\n        n += 1\n' };
    const { pdb, env } = await open({ files, runTimeout: 60 });
    limit(env, 2);
    const text = await pdb('c');
    expect(text).toMatch(/^The command `c` has timed out after 2 seconds and was interrupted \(Ctrl-C\); the pdb session is still running\./);
    expect(text).toMatch(/Current frame:\n\S+test_loop\.py:\d\n/);
    limit(env, 60);
    expect(await pdb('p n > 0')).toContain('Pdb command output:\nTrue\n');
    limit(env, 2);
    const sleeping = await pdb("!__import__('time').sleep(1000)");
    expect(sleeping).toContain("The command `!__import__('time').sleep(1000)` has timed out after 2 seconds");
    limit(env, 60);
    expect(await pdb('p 6*7')).toContain('Pdb command output:\n42\n');
  });

  test('a program that ignores Ctrl-C is killed and pdb restarted', async () => {
    const files = {
      ...CALC,
      'test_stuck.py': 'import signal\n\n\ndef test_stuck():\n    signal.signal(signal.SIGINT, signal.SIG_IGN)\n    while True:\n        pass\n',
    };
    const { pdb, env } = await open({ files, runTimeout: 60 });
    // The restart happens within the timed-out call, under the same limit: 5 s leaves it room.
    limit(env, 5);
    const text = await pdb('c');
    expect(text).toContain('The command `c` has timed out after 5 seconds. pdb did not respond to Ctrl-C, so the session was restarted.');
    expect(text).toContain('Starting pdb session with entrypoint:');
    limit(env, 60);
    expect(await pdb('p 6*7')).toContain('Pdb command output:\n42\n');
  });

  test('a pdb process that dies is replaced by the next call', async () => {
    const { pdb, env } = await open();
    const killed = await pdb("p __import__('os').kill(__import__('os').getpid(), 9)");
    expect(killed).toContain('The pdb process exited, so the session was restarted.');
    expect(killed).toContain('Current frame:');
    const pid = Number(/Pdb command output:\n(\d+)\n/.exec(await pdb("p __import__('os').getpid()"))?.[1]);
    expect(pid).toBeGreaterThan(1);
    await pdb("p __import__('subprocess').Popen(['sh', '-c', 'sleep 0.3; kill -9 %d' % __import__('os').getpid()]) and None");
    // Between two calls: wait until it is dead (gone or a zombie), however long a loaded machine takes.
    const dead = await env.terminal.run(`while [ -e /proc/${pid} ] && ! grep -q ') Z' /proc/${pid}/stat 2>/dev/null; do sleep 0.05; done; echo dead`, { timeoutMs: 120_000 });
    expect(dead.output).toContain('dead');
    const next = await pdb('p 6*7');
    expect(next).toMatch(/The (previous )?pdb (session had ended|process exited)/);
    expect(next).toContain('42');
  });

  test('quitting pdb starts a new session', async () => {
    const { pdb } = await open();
    const text = await pdb('q');
    expect(text).toContain('The pdb process exited, so the session was restarted.');
    expect(text).toMatch(/Current frame:\n\S+pytest\/__main__\.py:1\n/);
    expect(await pdb('p 6*7')).toContain('42');
  });

  test('code that does not compile is reported by the test run and pdb goes on', async () => {
    const files = { ...CALC, 'calc.py': 'def add(a, b):\n    total = a + b\n   return total\n' };
    const { pdb } = await open({ files });
    const text = await pdb('c');
    expect(text).toContain('IndentationError');
    expect(text).toContain('Reached the end of the program');
    expect(await pdb('p 6*7')).toContain('42');
  });

  test('a breakpoint whose line no longer holds code is reported when it cannot be restored', async () => {
    const { pdb, step, env, workdir } = await open();
    await pdb('b calc.py:3');
    await pdb('b calc.py:7');
    // Changed behind the env's back (no rewrite event), then a rewrite elsewhere restarts pdb.
    await env.terminal.writeFile(`${workdir}/calc.py`, CALC['calc.py']!.replace('    return total\n', '\n'));
    const rewrite = await step('rewrite_stub', { path: 'test_calc.py', start: 1, end: 1, new_code: 'from calc import double' });
    expect(rewrite.stepObservation.observation).toContain(
      `Breakpoints have been restored.\nThese breakpoints could not be restored (the line no longer holds code):\nline 3 in ${workdir}/calc.py`,
    );
    expect(rewrite.currentBreakpoints).toBe(`line 7 in ${workdir}/calc.py`);
  });

  test('a rewrite that breaks a script is reported, and fixing it brings pdb back', async () => {
    const files = { 'app.py': 'value = 1\nprint("value is", value)\n' };
    const { pdb, step } = await open({ files, debugEntrypoint: 'python -m pdb app.py' });
    const broken = await step('rewrite_stub', { path: 'app.py', start: 1, end: 1, new_code: 'value = (1' });
    expect(broken.stepObservation.observation).toContain('SyntaxError');
    await step('rewrite_stub', { path: 'app.py', start: 1, end: 1, new_code: 'value = 3' });
    expect(await pdb('c')).toContain('value is 3');
  });

  test('a debug entrypoint that cannot start is reported at reset and on use', async () => {
    const { pdb, reset } = await open({ debugEntrypoint: 'python -m pdb missing_script.py' });
    const start = reset.allObservations.find((item) => item.source === 'pdb')?.observation ?? '';
    expect(start).toMatch(/^Failed to start a pdb session with entrypoint: \S+ -m pdb missing_script\.py\n/);
    const text = await pdb('l');
    expect(text).toMatch(/^Failure calling pdb:\nStarting pdb session with entrypoint: \S+ -m pdb missing_script\.py\n/);
    expect(text).toContain('missing_script.py');
  });

  test('without a default entrypoint a rewrite before any session starts nothing', async () => {
    const { step } = await open({ pdb: { setDefaultEntrypoint: false } });
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 1, end: 1, new_code: 'def add(a, b):' });
    expect(rewrite.allObservations.map((item) => item.source)).toEqual(['rewrite_stub']);
  });

  test('a hidden pdb (rewrite_agent) starts no session and says nothing after rewrites; shown again, it starts', async () => {
    const { env, step, reset } = await open({ hideBeforeReset: ['pdb'] });
    expect(reset.allObservations.map((item) => item.source)).toEqual(['env']);
    const rewrite = await step('rewrite_stub', { path: 'calc.py', start: 1, end: 1, new_code: 'def add(a, b):' });
    expect(rewrite.stepObservation.observation).toBe('Rewrote calc.py.');
    expect(rewrite.allObservations.map((item) => item.source)).toEqual(['rewrite_stub']);
    expect(rewrite.tools.map((tool) => tool.function.name)).toEqual(['rewrite_stub']);
    expect((await step('pdb', { command: 'l' })).stepObservation.source).toBe('env');
    const shown = await env.setHiddenTools([]);
    expect(shown.observations[0]?.observation).toMatch(/^Starting pdb session with entrypoint: /);
    expect((await step('pdb', { command: 'p 6*7' })).stepObservation.observation).toMatch(/^Pdb command output:\n42\n/);
  });
});
