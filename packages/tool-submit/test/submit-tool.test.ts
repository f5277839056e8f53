import { availableBackends, createTestEnv } from '@debug-gym/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import submitTool, { TERMINATED_TEXT, formatAgentMessage } from '../src/index.js';

const backends = await availableBackends();

// Fixes go to app.py: the test files are restored before every run.
const FAILING = { 'app.py': 'def ok():\n    return False\n', 'test_1.py': 'from app import ok\n\ndef test_1():\n    assert ok()\n' };

describe.each(backends)('submit on $name', (backend) => {
  const envs: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });
  function env(options: Parameters<typeof createTestEnv>[1]) {
    const created = createTestEnv(backend, options);
    envs.push(created);
    return created;
  }

  it('prefixes the agent message, reports a final test run and ends the episode as submitted', async () => {
    const e = env({ files: FAILING, tools: [submitTool] });
    const reset = await e.reset();
    expect(reset.terminated).toBe(false);
    const info = await e.step({ name: 'submit', arguments: { message: 'I could not fix it.' } });
    expect(info.stepObservation.source).toBe('submit');
    expect(info.stepObservation.observation).toMatch(/^Agent message: I could not fix it\.\n\n/);
    expect(info.stepObservation.observation).toContain('FAILED test_1.py::test_1');
    expect(info.terminated).toBe(true);
    expect(info.terminationReason).toBe('submitted');
    expect(info.lastEval).not.toBe(reset.lastEval);
    expect(info.score).toBe(0);
  });

  it('scores the final run: a fixed repository is submitted with full score', async () => {
    const e = env({ files: FAILING, tools: [submitTool], terminateOnResolved: false });
    await e.reset();
    await e.workspace.writeText('app.py', 'def ok():\n    return True\n');
    const info = await e.step({ name: 'submit', arguments: {} });
    expect(info.stepObservation.observation).toContain('1 passed');
    expect(info.score).toBe(1);
    expect(info.resolved).toBe(true);
    expect(info.terminationReason).toBe('submitted');
  });

  it('only says the session ended when evalOnSubmit is false, leaving the last evaluation alone', async () => {
    const e = env({ files: FAILING, tools: [[submitTool, { evalOnSubmit: false }]] });
    const reset = await e.reset();
    const info = await e.step({ name: 'submit', arguments: { message: null } });
    expect(info.stepObservation.observation).toBe(TERMINATED_TEXT);
    expect(info.lastEval).toBe(reset.lastEval);
    expect(info.terminated).toBe(true);
    expect(info.terminationReason).toBe('submitted');
  });
});

describe('formatAgentMessage', () => {
  it.each([
    ['Fixed it.', 'Agent message: Fixed it.\n\n'],
    ['', ''],
    ['   ', ''],
    [undefined, ''],
    [null, ''],
  ])('%j → %j', (message, expected) => {
    expect(formatAgentMessage(message)).toBe(expected);
  });
});

describe('the submit plugin', () => {
  it('has one optional, nullable message argument', () => {
    expect(submitTool.parameters.required).toEqual([]);
    expect(submitTool.parameters.properties.message?.type).toEqual(['string', 'null']);
  });
});
