import { type LaunchInfo, type RepoEnv, type Terminal, UnrecoverableTerminalError } from '@debug-gym/core';
import { availableBackends, createTestEnv } from '@debug-gym/test-utils';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import rewriteTool, { SyntaxChecker, checkPythonSyntax, resolveInterpreter, shellQuote } from '../src/index.js';

const backends = await availableBackends();

test.each([
  ['plain', "'plain'"],
  ["it's", "'it'\\''s'"],
  ['a b $c `d`', "'a b $c `d`'"],
])('shellQuote(%j) is %s', (word, quoted) => {
  expect(shellQuote(word)).toBe(quoted);
});

describe.each(backends)('Python syntax check on $name', (backend) => {
  let env: RepoEnv;

  beforeAll(async () => {
    env = await createTestEnv(backend, {
      files: { 'mod.py': 'X = 1\n' },
      tools: [[rewriteTool, { checkSyntax: false }]],
      evalOnReset: false,
    });
    await env.reset();
  });

  afterAll(async () => {
    await env?.close();
  });

  test('resolves the interpreter behind the configured command to an absolute path', async () => {
    const interpreter = await resolveInterpreter(env.terminal, env.settings.python);
    expect(interpreter.startsWith('/')).toBe(true);
    const version = await env.terminal.run(`${interpreter} -S -c 'import sys; print(sys.version_info[0])'`);
    expect(version.output.trim()).toBe('3');
  });

  test('falls back to the configured command when it cannot be run', async () => {
    expect(await resolveInterpreter(env.terminal, 'no-such-python-here')).toBe('no-such-python-here');
  });

  test('reports nothing when the interpreter is missing (the check cannot run)', async () => {
    expect(await checkPythonSyntax(env.terminal, 'no-such-python-here', 'def f(:\n', 'x.py')).toBeNull();
  });

  test.each([
    ['x = 1\n', null],
    ['# -*- coding: latin-1 -*-\nx = "é"\n', null],
    ['def f(:\n    pass\n', /^ {2}File "m\.py", line 1\n[^]*SyntaxError: /],
    ['x = 1\x00\n', /(SyntaxError|ValueError): .*null/],
  ])('checks %j', async (source, expected) => {
    const report = await new SyntaxChecker().check(env.terminal, env.settings.python, source, 'm.py');
    if (expected === null) expect(report).toBeNull();
    else expect(report).toMatch(expected);
  });

  test.each([
    ['x = 1\n', null],
    ['def f(:\n    pass\n', /^ {2}File "m\.py", line 1\n[^]*SyntaxError: /],
    ['x = "\\d"\n', null],
  ])('forked from the fork server, checks %j as the cold command does', async (source, expected) => {
    expect((await env.terminal.startForkServer?.())?.ready).toBe(true);
    const { terminal, launches } = recordingLaunches(env.terminal);
    const cold = await new SyntaxChecker().check(env.terminal, env.settings.python, source, 'm.py');
    const forked = await new SyntaxChecker().check(terminal, env.settings.python, source, 'm.py', true);
    expect(forked).toBe(cold);
    if (expected === null) expect(forked).toBeNull();
    else expect(forked).toMatch(expected);
    // A forked check needs no interpreter resolved first.
    expect(launches.map((launch) => launch?.via)).toEqual(['fork-server']);
  });

  test("a warnings.py or traceback.py of the working copy does not run inside the check, cold or forked", async () => {
    expect((await env.terminal.startForkServer?.())?.ready).toBe(true);
    const planted = ['warnings.py', 'traceback.py'].map((name) => `${env.terminal.workdir}/${name}`);
    const spoof = 'import sys\nsys.stdout.write("DEBUG_GYM_SYNTAX_ERROR\\nSPOOFED\\n")\n';
    for (const path of planted) await env.terminal.writeFile(path, spoof);
    try {
      for (const fork of [false, true]) {
        expect(await new SyntaxChecker().check(env.terminal, env.settings.python, 'x = 1\n', 'm.py', fork)).toBeNull();
        expect(await new SyntaxChecker().check(env.terminal, env.settings.python, 'def f(:\n', 'm.py', fork)).toMatch(/SyntaxError/);
      }
    } finally {
      for (const path of planted) await env.terminal.remove(path);
    }
  });

  test('a check that starts cold resolves the interpreter once, for the next cold checks', async () => {
    const { terminal, commands } = withoutForkServer(env.terminal);
    const checker = new SyntaxChecker();
    expect(await checker.check(terminal, env.settings.python, 'x = (\n', 'm.py', true)).toMatch(/SyntaxError/);
    expect(await checker.check(terminal, env.settings.python, 'x = 1\n', 'm.py', true)).toBeNull();
    const interpreter = await resolveInterpreter(env.terminal, env.settings.python);
    // The first check runs `python` as configured, then the interpreter is resolved and used.
    expect(commands.map((command) => command.split(' ')[0])).toEqual([env.settings.python, env.settings.python, interpreter]);
    expect(commands[1]).toContain('sys.executable');
  });

  test('a sandbox that dies while the interpreter is resolved in the background leaves no unhandled rejection', async () => {
    const { terminal } = withoutForkServer(env.terminal);
    const dying = interceptRun(terminal, (inner, command, options) =>
      command.includes('sys.executable') ? Promise.reject(new UnrecoverableTerminalError('The sandbox died.')) : inner.run(command, options),
    );
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const checker = new SyntaxChecker();
      expect(await checker.check(dying, env.settings.python, 'x = 1\n', 'm.py', true)).toBeNull();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(rejections).toEqual([]);
      // The next check runs with `python` as configured: the failed resolution is not retried.
      expect(await checker.check(dying, env.settings.python, 'def f(:\n', 'm.py', true)).toMatch(/SyntaxError/);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  test('can be turned off with the checkSyntax option', async () => {
    const info = await env.step({ name: 'rewrite', arguments: { path: 'mod.py', start: 1, new_code: 'def broken(:' } });
    expect(info.stepObservation.observation).toBe(
      'The file `mod.py` has been updated successfully.\n\nDiff:\n\n--- original\n+++ current\n@@ -1 +1 @@\n-X = 1\n+def broken(:\n',
    );
  });
});

/** The terminal with its `run` replaced (`run` gets the terminal itself); every other member is the terminal's. */
function interceptRun(inner: Terminal, run: (inner: Terminal, ...args: Parameters<Terminal['run']>) => ReturnType<Terminal['run']>): Terminal {
  return new Proxy(inner, {
    get(target, key) {
      if (key === 'run') return (...args: Parameters<Terminal['run']>) => run(target, ...args);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The terminal, with the launch of every `run` recorded. */
function recordingLaunches(inner: Terminal): { terminal: Terminal; launches: Array<LaunchInfo | undefined> } {
  const launches: Array<LaunchInfo | undefined> = [];
  const terminal = interceptRun(inner, async (target, ...args) => {
    const result = await target.run(...args);
    launches.push(result.launch);
    return result;
  });
  return { terminal, launches };
}

/** The terminal, as one without a fork server: every `run` starts cold (its command is recorded). */
function withoutForkServer(inner: Terminal): { terminal: Terminal; commands: string[] } {
  const commands: string[] = [];
  const terminal = interceptRun(inner, (target, command, options = {}) => {
    commands.push(command);
    const { python: _dropped, ...cold } = options;
    return target.run(command, cold);
  });
  return { terminal, commands };
}
