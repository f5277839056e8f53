import { afterEach, describe, expect, it } from 'vitest';
import { availableBackends, createTestEnv, localBackend, testdir, type Backend } from '../../../tools/test-utils/src/index.js';
import {
  EnvConfigError,
  EnvNotReadyError,
  RepoEnv,
  UnrecoverableTerminalError,
  WorkspaceError,
  defineToolPlugin,
  type RepoEnv as RepoEnvType,
  type ToolPluginV1,
} from '../src/index.js';

const backends = await availableBackends();
const local: Backend = localBackend;

const FAILING_REPO = {
  'test_pass.py': 'def test_pass():\n    assert True\n',
  'test_fail.py': 'def test_fail():\n    assert False\n',
  'app.py': 'def add(a, b):\n    return a - b\n',
};

function plugin(name: string, run: ToolPluginV1['create'] extends (o: never) => infer R ? Partial<R> : never, extra: Partial<ToolPluginV1> = {}) {
  return defineToolPlugin({
    specificationVersion: 'tool-plugin-v1',
    name,
    description: `The ${name} tool.`,
    parameters: { type: 'object', properties: { text: { type: ['string', 'null'] } } },
    create: () => ({ run: async () => `${name} ran`, ...run }),
    ...extra,
  });
}

const echo = plugin('echo', { run: async (args) => `echo: ${String(args.text ?? '')}` });

const envs: RepoEnvType[] = [];
function track(env: RepoEnvType): RepoEnvType {
  envs.push(env);
  return env;
}
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.close()));
});

describe('RepoEnv construction', () => {
  it('needs a path and a terminal', () => {
    expect(() => new RepoEnv({ path: '', terminal: local.create() })).toThrow(EnvConfigError);
    expect(() => new RepoEnv({ path: '/x', terminal: undefined as never })).toThrow(/needs `terminal`/);
  });

  it('refuses step() before reset()', async () => {
    const env = track(createTestEnv(local, { files: FAILING_REPO }));
    await expect(env.step({ name: 'echo' })).rejects.toBeInstanceOf(EnvNotReadyError);
    await expect(env.evaluate()).rejects.toBeInstanceOf(EnvNotReadyError);
  });
});

describe.each(backends)('RepoEnv on $name', (backend) => {
  it('reset copies the repository, runs the tests once and reports the initial info', async () => {
    const repo = testdir(FAILING_REPO);
    const env = track(createTestEnv(backend, { path: repo, tools: [echo], instructions: 'Fix add().' }));
    const info = await env.reset();
    expect(info.stepObservation).toEqual({ source: 'env', observation: info.instructions });
    expect(info.instructions).toContain('Fix add().');
    expect(info.instructions).toContain('### echo');
    expect(info.evalObservation?.observation).toContain('1 failed, 1 passed');
    expect(info.allObservations.map((o) => o.source)).toEqual(['env', 'eval']);
    expect(info).toMatchObject({ score: 1, maxScore: 2, resolved: false, terminated: false, stepCount: 0, rewriteCount: 0, actionToolCall: null });
    // Plugins of the developer's pytest may add folders such as .benchmarks/; the task's files are what matter.
    expect(info.dirTree.split('\n').slice(1).filter((line) => !line.startsWith('|-- .'))).toEqual(['|-- app.py', '|-- test_fail.py', '|-- test_pass.py']);
    expect(info.dirTree).not.toContain('.pytest_cache');
    expect(info.dirTree.startsWith(`${info.workdir}/`)).toBe(true);
    expect(info.currentBreakpoints).toBe('No breakpoints are set.');
    expect(info.tools).toEqual([{ type: 'function', function: { name: 'echo', description: 'The echo tool.', parameters: echo.parameters } }]);
  });
});

describe('RepoEnv.step', () => {
  async function started(extraTools: ToolPluginV1<never>[] = [], options: Parameters<typeof createTestEnv>[1] = {}) {
    const env = track(createTestEnv(local, { files: FAILING_REPO, tools: [echo, ...extraTools], ...options }));
    await env.reset();
    return env;
  }

  it('runs a tool and counts the step', async () => {
    const env = await started();
    const info = await env.step({ id: 'call-1', name: 'echo', arguments: { text: 'hi' } });
    expect(info.stepObservation).toEqual({ source: 'echo', observation: 'echo: hi' });
    expect(info.actionToolCall).toEqual({ id: 'call-1', name: 'echo', arguments: { text: 'hi' } });
    expect(info.stepCount).toBe(1);
  });

  it('accepts JSON-text arguments and an explicit null meaning "default"', async () => {
    const env = await started();
    expect((await env.step({ name: 'echo', arguments: '{"text":"json"}' })).stepObservation.observation).toBe('echo: json');
    expect((await env.step({ name: 'echo', arguments: { text: null } })).stepObservation.observation).toBe('echo: ');
  });

  it('answers an unknown tool with the list of available tools', async () => {
    const env = await started([plugin('other', {})]);
    const info = await env.step({ name: 'listdir', arguments: {} });
    expect(info.stepObservation).toEqual({ source: 'env', observation: "Tool 'listdir' not found among available tools: echo, other." });
  });

  it('answers a call without a name', async () => {
    const env = await started();
    expect((await env.step({ name: '' })).stepObservation.observation).toMatch(/has no tool name.*echo/);
    expect((await env.step(null as never)).stepObservation.source).toBe('env');
  });

  it('reports wrong arguments with a usage line, without running the tool', async () => {
    const env = await started();
    const info = await env.step({ name: 'echo', arguments: { text: 3, extra: true } });
    expect(info.stepObservation.observation).toContain('argument `text` must be a string');
    expect(info.stepObservation.observation).toContain('unexpected argument `extra`');
    expect(info.stepObservation.observation).toContain('Usage: echo(text?: string)');
  });

  it('turns tool errors into observations and keeps the episode usable', async () => {
    const failing = plugin('workspace_fail', {
      run: async (_args, context) => {
        await context.workspace.readText('../outside.txt');
        return 'unreachable';
      },
    });
    const crashing = plugin('crash', { run: async () => { throw new TypeError('boom'); } });
    const env = await started([failing, crashing]);
    expect((await env.step({ name: 'workspace_fail' })).stepObservation.observation).toMatch(/is not within the workspace directory/);
    expect((await env.step({ name: 'crash' })).stepObservation.observation).toBe('Error while using tool crash: TypeError: boom');
    expect((await env.step({ name: 'echo', arguments: { text: 'still here' } })).stepObservation.observation).toBe('echo: still here');
  });

  it('ends the episode with a clear message when the sandbox dies', async () => {
    const dying = plugin('die', { run: async () => { throw new UnrecoverableTerminalError('The container is gone.'); } });
    const env = await started([dying]);
    const info = await env.step({ name: 'die' });
    expect(info.stepObservation.observation).toContain('Fatal terminal error detected');
    expect(info).toMatchObject({ terminated: true, terminationReason: 'fatal_error' });
    const again = await env.reset();
    expect(again.terminated).toBe(false);
  });

  it('cuts huge observations in the middle and normalizes them', async () => {
    const loud = plugin('loud', { run: async () => `\u001b[31mstart\r\n${'x'.repeat(100_000)}end` });
    const env = await started([loud], { maxOutputChars: 1000 });
    const text = (await env.step({ name: 'loud' })).stepObservation.observation;
    expect(text.length).toBeLessThanOrEqual(1000);
    expect(text.startsWith('start\nxxx')).toBe(true);
    expect(text.endsWith('end')).toBe(true);
  });

  it('keeps the text before normalization as `raw` for trajectories, only when normalizing changed it', async () => {
    const colored = plugin('colored', { run: async () => '\u001b[31mred\r\nline' });
    const env = await started([colored]);
    expect((await env.step({ name: 'colored' })).stepObservation).toEqual({ source: 'colored', observation: 'red\nline', raw: '\u001b[31mred\r\nline' });
    expect((await env.step({ name: 'echo', arguments: { text: 'plain' } })).stepObservation).toEqual({ source: 'echo', observation: 'echo: plain' });
  });

  it('delivers rewrite events to other tools, shifts breakpoints, and shows hook notes in the step observation', async () => {
    const seen: string[] = [];
    const writer = plugin('writer', {
      run: async (_args, context) => {
        const written = await context.workspace.writeText('app.py', 'def add(a, b):\n    return a + b\n');
        context.emit({ type: 'rewrite', source: 'writer', path: written.absolute, relativePath: written.relative, start: 2, end: 2, newLineCount: 1, created: false });
        return 'written';
      },
    });
    const listener = plugin('listener', {
      onRewrite: async (event) => {
        seen.push(`${event.relativePath}:${event.start}`);
        return 'listener noticed the rewrite';
      },
    });
    const env = await started([writer, listener]);
    env.breakpoints.add({ file: `${env.terminal.workdir}/app.py`, line: 2 });
    env.breakpoints.add({ file: `${env.terminal.workdir}/app.py`, line: 1 });
    const info = await env.step({ name: 'writer' });
    expect(seen).toEqual(['app.py:2']);
    expect(info.rewriteCount).toBe(1);
    expect(info.stepObservation.observation).toBe('written\n\nlistener noticed the rewrite');
    expect(info.allObservations.map((o) => o.source)).toEqual(['writer', 'listener']);
    expect(info.breakpoints).toEqual([{ file: `${env.terminal.workdir}/app.py`, line: 1 }]);
  });

  it.each([
    [false, ['writer returns', 'listener starts', 'listener ends']],
    [true, ['listener starts', 'writer returns', 'listener ends']],
  ])('runs rewrite hooks after the call, or alongside it with an early emit (early: %s); the step waits for them', async (early, expected) => {
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const writer = plugin('writer', {
      run: async (_args, context) => {
        const written = await context.workspace.writeText('app.py', 'def add(a, b):\n    return a + b\n');
        context.emit({ type: 'rewrite', source: 'writer', path: written.absolute, relativePath: written.relative, start: null, end: null, newLineCount: 2, created: false }, { early });
        // Let an early hook start before this call returns.
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('writer returns');
        release();
        return 'written';
      },
    });
    const listener = plugin('listener', {
      onRewrite: async () => {
        order.push('listener starts');
        await released;
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('listener ends');
        return 'listener done';
      },
    });
    const env = await started([writer, listener]);
    const info = await env.step({ name: 'writer' });
    expect(order).toEqual(expected);
    expect(info.stepObservation.observation).toBe('written\n\nlistener done');
    expect(info.rewriteCount).toBe(1);
  });

  it('runs the hooks of an event emitted without early after the call, even behind an early one', async () => {
    const order: string[] = [];
    const writer = plugin('writer', {
      run: async (_args, context) => {
        const event = (start: number) => ({ type: 'rewrite' as const, source: 'writer', path: `${context.terminal.workdir}/app.py`, relativePath: 'app.py', start, end: start, newLineCount: 1, created: false });
        context.emit(event(1), { early: true });
        await new Promise((resolve) => setTimeout(resolve, 20));
        context.emit(event(2));
        context.emit(event(3), { early: true });
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('writer returns');
        return 'written';
      },
    });
    const listener = plugin('listener', {
      onRewrite: async (event) => {
        order.push(`hook ${event.start}`);
      },
    });
    const env = await started([writer, listener]);
    const info = await env.step({ name: 'writer' });
    // 3 waits behind 2: hooks keep the order of the events.
    expect(order).toEqual(['hook 1', 'writer returns', 'hook 2', 'hook 3']);
    expect(info.rewriteCount).toBe(3);
  });

  it('scores after an evaluation and terminates when resolved (1.0 rule)', async () => {
    const fixer = plugin('fix', {
      run: async (_args, context) => {
        await context.workspace.writeText('app.py', 'def add(a, b):\n    return a + b\n');
        const result = await context.evaluate('fix');
        return result.output;
      },
    });
    const files = { 'test_pass.py': FAILING_REPO['test_pass.py'], 'app.py': FAILING_REPO['app.py'], 'test_add.py': 'from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n' };
    const env = await started([fixer], { files });
    const info = await env.step({ name: 'fix' });
    expect(info).toMatchObject({ score: 2, maxScore: 2, resolved: true, terminated: true, terminationReason: 'resolved' });
    expect(info.lastEval?.success).toBe(true);
  });

  it('keeps going after resolution when terminateOnResolved is false, and ends on terminate()', async () => {
    const submit = plugin('submit', { run: async (_args, context) => { context.terminate('submitted'); return 'bye'; } });
    const env = await started([submit], { files: { 'test_ok.py': 'def test_ok():\n    pass\n' }, terminateOnResolved: false });
    const first = await env.step({ name: 'echo' });
    expect(first).toMatchObject({ resolved: true, terminated: false });
    expect(await env.step({ name: 'submit' })).toMatchObject({ terminated: true, terminationReason: 'submitted' });
  });

  it('kills a test run that never ends at runTimeout, scores 0 and stays usable', async () => {
    const env = track(createTestEnv(local, {
      files: { 'test_loop.py': 'def test_loop():\n    while True:\n        pass\n' },
      tools: [echo],
      runTimeout: 1,
    }));
    const info = await env.reset();
    expect(info.evalObservation?.observation).toMatch(/^Command timed out after 1 seconds/);
    expect(info).toMatchObject({ score: 0, resolved: false });
    expect((await env.step({ name: 'echo', arguments: { text: 'alive' } })).stepObservation.observation).toBe('echo: alive');
  });

  it('reports failing setup commands and hook errors as observations', async () => {
    const badHook = plugin('badhook', { onReset: async () => { throw new WorkspaceError('DG_X', 'hook failed politely'); } });
    const env = track(createTestEnv(local, { files: FAILING_REPO, tools: [badHook], setupCommands: ['exit 3', 'true'], evalOnReset: false }));
    const info = await env.reset();
    expect(info.evalObservation).toBeNull();
    expect(info.allObservations.map((o) => o.observation)).toEqual([
      info.instructions,
      'Setup command failed (exit 3): exit 3\n',
      'hook failed politely',
    ]);
  });

  it('hides .debugignore files from the directory tree and marks read-only ones', async () => {
    const env = track(createTestEnv(local, {
      files: { ...FAILING_REPO, '.debugignore': 'secret.py\n', '.debugreadonly': 'test_*.py\n', 'secret.py': 'x = 1\n' },
      evalOnReset: false,
    }));
    const info = await env.reset();
    expect(info.dirTree.split('\n').slice(1)).toEqual(['|-- app.py', '|-- test_fail.py (read-only)', '|-- test_pass.py (read-only)']);
  });

  it('reuses the directory tree after tools that never change files, and re-reads it after any other tool', async () => {
    const looker = plugin('looker', {}, { changesFiles: false });
    const env = await started([looker]);
    const before = (await env.step({ name: 'looker' })).dirTree;
    await env.terminal.writeFile(`${env.terminal.workdir}/added_behind_the_env.py`, 'x = 1\n');
    expect((await env.step({ name: 'looker' })).dirTree).toBe(before);
    expect((await env.step({ name: 'echo' })).dirTree).toContain('|-- added_behind_the_env.py');
  });

  it('re-reads the directory tree after the gold patch, between two steps that change no file', async () => {
    const looker = plugin('looker', {}, { changesFiles: false });
    const goldPatch = '--- /dev/null\n+++ b/gold_module.py\n@@ -0,0 +1 @@\n+x = 1\n';
    const env = await started([looker], { goldPatch, evalOnReset: false });
    expect((await env.step({ name: 'looker' })).dirTree).not.toContain('gold_module.py');
    expect((await env.applyGoldPatch()).applied).toBe(true);
    expect((await env.step({ name: 'looker' })).dirTree).toContain('|-- gold_module.py');
  });

  it('never modifies the user repository', async () => {
    const repo = testdir(FAILING_REPO);
    const writer = plugin('writer', { run: async (_a, context) => { await context.workspace.writeText('app.py', 'changed'); return 'ok'; } });
    const env = track(createTestEnv(local, { path: repo, tools: [writer], evalOnReset: false }));
    await env.reset();
    await env.step({ name: 'writer' });
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(`${repo}/app.py`, 'utf8')).toBe(FAILING_REPO['app.py']);
  });

  it('supports await using', async () => {
    let workdir = '';
    {
      await using env = createTestEnv(local, { files: FAILING_REPO, evalOnReset: false });
      workdir = (await env.reset()).workdir;
    }
    const { existsSync } = await import('node:fs');
    expect(existsSync(workdir)).toBe(false);
  });
});
