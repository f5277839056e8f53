import { DebugGymError, WorkspaceError } from '@debug-gym/core';
import rewrite from '@debug-gym/tool-rewrite';
import view from '@debug-gym/tool-view';
import { describe, expect, it } from 'vitest';
import { INVALID_ARGUMENTS_CODE, createToolContext, runTool } from '../src/index.js';
import { careless, echoTool } from './fixture-tools.js';

describe('runTool', () => {
  it('runs a real tool over the files the test gives', async () => {
    const { output } = await runTool(view, { path: 'app.py' }, { files: { 'app.py': 'x = 1\ny = 2\n' } });
    expect(output).toContain('x = 1');
    expect(output).toContain('y = 2');
  });

  it('refuses arguments that do not match the schema with a DebugGymError carrying a code, before run()', async () => {
    const error = await runTool(echoTool, { text: 3 }).catch((caught: unknown) => caught);
    expect(DebugGymError.hasCode(error, INVALID_ARGUMENTS_CODE)).toBe(true);
    expect((error as Error).message).toBe('Invalid arguments for tool `echo`: argument `text` must be a string. Usage: echo(text: string, times?: integer)');
  });

  it('passes the errors a tool throws to the caller unchanged', async () => {
    const error = await runTool(careless, { path: '' }, { files: {} }).catch((caught: unknown) => caught);
    expect(WorkspaceError.isInstance(error)).toBe(true);
    // view answers with a message instead: what the model sees.
    expect((await runTool(view, { path: '../etc/passwd' }, { files: {} })).output).toContain('View failed. Error message:');
  });

  it('records rewrites and keeps a context open across calls when the test owns it', async () => {
    await using context = await createToolContext({ files: { 'a.py': 'one\ntwo\n' } });
    const file = `${context.terminal.workdir}/a.py`;
    context.breakpoints.add({ file, line: 2 });
    await runTool(rewrite, { path: 'a.py', start: 1, new_code: 'zero\nhalf' }, { context });
    expect(await context.readFile('a.py')).toBe('zero\nhalf\ntwo\n');
    expect(context.emitted).toMatchObject([{ type: 'rewrite', relativePath: 'a.py', start: 1, end: 1, newLineCount: 2 }]);
    expect(context.state.rewriteCount).toBe(1);
    // The breakpoint on `two` moved with it, from line 2 to 3.
    expect(context.breakpoints.has(file, 3)).toBe(true);
    const { output } = await runTool(view, { path: 'a.py' }, { context });
    expect(output).toContain('half');
  });

  it('evaluates the entrypoint and scores it like the env', async () => {
    await using context = await createToolContext({
      files: { 'test_a.py': 'def test_ok():\n    assert True\n\ndef test_bad():\n    assert False\n' },
    });
    const result = await context.evaluate('test');
    expect(result).toMatchObject({ score: 1, maxScore: 2, success: false });
    expect(context.evaluations).toHaveLength(1);
    context.terminate('submitted');
    expect(context.terminatedWith).toBe('submitted');
  });
});
