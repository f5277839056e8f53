import { defineToolPlugin } from '@debug-gym/core';
import { availableBackends, createTestEnv, sharedDataPath } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import evalTool, { createEval } from '../src/index.js';

const backends = await availableBackends();

// The test files are restored before every run (the agent cannot edit a test into passing): fixes go to app.py.
const FAILING = { 'app.py': 'def ok():\n    return False\n', 'test_1.py': 'from app import ok\n\ndef test_1():\n    assert ok()\n' };
const FIXED = 'def ok():\n    return True\n';

/** A minimal editing tool: writes the file and announces the rewrite, like the rewrite tool does. */
const touchTool = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'touch',
  description: 'Rewrite a file and announce it.',
  parameters: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] },
  create: () => ({
    async run(args, context) {
      const written = await context.workspace.writeText(args.path as string, args.text as string);
      context.emit({ type: 'rewrite', source: 'touch', path: written.absolute, relativePath: written.relative, start: null, end: null, newLineCount: 2, created: false });
      return 'written';
    },
  }),
});

describe.each(backends)('eval on $name', (backend) => {
  const envs: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });
  function env(options: Parameters<typeof createTestEnv>[1]) {
    const created = createTestEnv(backend, options);
    envs.push(created);
    return created;
  }

  it('reports the failing test, then "1 passed" once the file is fixed', async () => {
    const e = env({ files: FAILING, tools: [evalTool] });
    await e.reset();
    const failing = await e.step({ name: 'eval', arguments: {} });
    expect(failing.stepObservation.source).toBe('eval');
    expect(failing.stepObservation.observation).toContain('FAILED test_1.py::test_1');
    expect(failing.score).toBe(0);
    expect(failing.maxScore).toBe(1);

    await e.workspace.writeText('app.py', FIXED);
    const fixed = await e.step({ name: 'eval', arguments: {} });
    expect(fixed.stepObservation.observation).toContain('1 passed');
    expect(fixed.score).toBe(1);
    expect(fixed.resolved).toBe(true);
  });

  it('scores the mini-nightmare config task: 2 failed, max score 2, score 0', async () => {
    const e = env({ path: sharedDataPath('mini_nightmare', 'config'), entrypoint: 'python -m pytest --tb=no -s test.py', tools: [evalTool] });
    await e.reset();
    const info = await e.step({ name: 'eval', arguments: {} });
    expect(info.stepObservation.observation).toContain('2 failed');
    expect(info.maxScore).toBe(2);
    expect(info.score).toBe(0);
    expect(info.resolved).toBe(false);
  });

  it('reports a syntax error in the code as a collection error scoring 0', async () => {
    const e = env({ files: { 'calc.py': 'def broken(:\n    pass\n', 'test_calc.py': 'from calc import broken\n\ndef test_it():\n    broken()\n' }, tools: [evalTool] });
    await e.reset();
    const info = await e.step({ name: 'eval', arguments: {} });
    expect(info.stepObservation.observation).toMatch(/error/i);
    expect(info.stepObservation.observation).toContain('SyntaxError');
    expect(info.score).toBe(0);
    expect(info.lastEval?.success).toBe(false);
  });

  it('stops a test run that never ends at runTimeout, scores 0, and evaluates again after a fix', async () => {
    const e = env({
      files: { 'app.py': 'def ok():\n    while True:\n        pass\n', 'test_1.py': 'from app import ok\n\ndef test_1():\n    ok()\n' },
      tools: [evalTool, touchTool],
      // Short, to wait out the run that never ends (no normal run is held to it: see below).
      runTimeout: 5,
      evalOnReset: false,
    });
    await e.reset();
    const stuck = await e.step({ name: 'eval', arguments: {} });
    expect(stuck.stepObservation.observation).toMatch(/^Command timed out after 5 seconds/);
    expect(stuck.score).toBe(0);
    expect(stuck.lastEval?.timedOut).toBe(true);

    // The run after the fix gets the default limit (60 s): what is tested is that the env evaluates again
    // after a killed run, not how fast, and on a loaded machine that run (pytest started again after the
    // kill) took more than 5 s.
    e.settings.runTimeoutMs = 60_000;
    await e.step({ name: 'touch', arguments: { path: 'app.py', text: FIXED } });
    const fixed = await e.step({ name: 'eval', arguments: {} });
    expect(fixed.stepObservation.observation).toContain('1 passed');
    expect(fixed.score).toBe(1);
  }, 180_000);

  it('cuts megabytes of test output down with a truncation marker', async () => {
    const e = env({ files: { 'test_1.py': "def test_1():\n    for _ in range(60000):\n        print('y' * 99)\n    assert False\n" }, tools: [evalTool], evalOnReset: false });
    await e.reset();
    const info = await e.step({ name: 'eval', arguments: {} });
    const output = info.stepObservation.observation;
    expect(output).toContain('truncated');
    expect(output.length).toBeLessThanOrEqual(e.settings.maxOutputChars);
    expect(info.score).toBe(0);
  });

  it('does not re-run the tests after a rewrite by default', async () => {
    const e = env({ files: FAILING, tools: [evalTool, touchTool] });
    const reset = await e.reset();
    const before = reset.lastEval;
    const info = await e.step({ name: 'touch', arguments: { path: 'app.py', text: FIXED } });
    expect(info.lastEval).toBe(before);
    expect(info.allObservations.map((o) => o.source)).toEqual(['touch']);
    expect(info.score).toBe(0);
  });

  it('re-runs the tests after every rewrite with runOnRewrite (the 1.0 behaviour)', async () => {
    const e = env({ files: FAILING, tools: [[evalTool, { runOnRewrite: true }], touchTool] });
    await e.reset();
    const info = await e.step({ name: 'touch', arguments: { path: 'app.py', text: FIXED } });
    expect(info.allObservations.map((o) => o.source)).toEqual(['touch', 'eval']);
    expect(info.allObservations[1]?.observation).toContain('1 passed');
    expect(info.score).toBe(1);
  });
});

describe('the eval plugin', () => {
  it('takes no arguments and refuses unexpected ones through the schema', () => {
    expect(evalTool.parameters).toEqual({ type: 'object', properties: {}, required: [] });
    expect(evalTool.name).toBe('eval');
  });

  it('only hooks rewrites when asked to', () => {
    expect(createEval().onRewrite).toBeUndefined();
    expect(createEval({ runOnRewrite: true }).onRewrite).toBeTypeOf('function');
  });
});
