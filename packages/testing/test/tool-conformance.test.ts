import { DebugGymError, type ToolPluginV1 } from '@debug-gym/core';
import bash from '@debug-gym/tool-bash';
import evalTool from '@debug-gym/tool-eval';
import grep from '@debug-gym/tool-grep';
import listdir from '@debug-gym/tool-listdir';
import pdb from '@debug-gym/tool-pdb';
import rewrite from '@debug-gym/tool-rewrite';
import submit from '@debug-gym/tool-submit';
import view from '@debug-gym/tool-view';
import { describe, expect, it } from 'vitest';
import { NOT_CONFORMANT_CODE, assertToolConformance, checkToolConformance } from '../src/index.js';
import { careless, echoTool } from './fixture-tools.js';

describe('checkToolConformance', () => {
  it.each([
    ['view', view, { validCalls: [{ path: 'src/app.py' }, { path: 'src/app.py', start: 1, end: 1 }] }],
    ['listdir', listdir, {}],
    ['rewrite', rewrite, { validCalls: [{ path: 'src/new.py', new_code: 'x = 1' }] }],
    ['bash', bash, { validCalls: [{ command: 'echo hi' }] }],
    ['grep', grep, { validCalls: [{ pattern: 'def' }] }],
    ['pdb', pdb, { validCalls: [{ command: 'p 1 + 1' }] }],
    ['eval', evalTool, { validCalls: [{}] }],
    // Every submit call runs the tests: the generated probes add nothing but time.
    ['submit', submit, { validCalls: [{ message: 'done' }], probes: false }],
    ['a well-behaved inline tool', echoTool, { validCalls: [{ text: 'hi', times: 2 }] }],
  ] as Array<[string, ToolPluginV1, object]>)('the seed tool %s passes', async (_name, plugin, options) => {
    const result = await checkToolConformance(plugin, options);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.checks.map((check) => check.name)).toEqual(['manifest', 'parameters', 'aliases', 'instance', 'bad arguments', 'calls']);
  });

  it('names what is wrong with a plugin that is not a tool plugin', async () => {
    const result = await checkToolConformance({ name: 'x' } as unknown as ToolPluginV1);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      "manifest: Could not load tool plugin 'x': unsupported specificationVersion undefined; this core understands 'tool-plugin-v1'.",
    ]);
  });

  it('finds an untyped, undescribed argument, an optional one that refuses null, and an invalid schema', async () => {
    const sloppy = { ...echoTool, parameters: { type: 'object', properties: { text: { type: 'string' }, n: { type: 'integer', description: 'N.' } }, required: ['text', 'gone'] } } as ToolPluginV1;
    expect((await checkToolConformance(sloppy)).problems).toEqual([
      'parameters: required argument `gone` is not in properties.',
      'parameters: argument `text` has no description (the model reads it).',
      "parameters: optional argument `n` should accept null (type ['integer', 'null']): models send null for \"use the default\".",
    ]);
    const invalid = { ...echoTool, parameters: { type: 'object', properties: { text: { type: 'strin', description: 'T.' } } } } as unknown as ToolPluginV1;
    expect((await checkToolConformance(invalid)).problems[0]).toMatch(/^parameters: parameters is not a valid JSON Schema: schema is invalid/);
  });

  it('finds a schema that lets unknown arguments through', async () => {
    const open = { ...echoTool, parameters: { ...echoTool.parameters, additionalProperties: true } } as ToolPluginV1;
    expect((await checkToolConformance(open)).problems).toEqual(['parameters: additionalProperties is true: misspelled arguments would reach run() unnoticed.']);
  });

  it('reports a raw error escaping run() and says what to do instead', async () => {
    const result = await checkToolConformance({ ...careless, parameters: { ...careless.parameters, properties: { path: { type: 'string', description: 'File.' } } } });
    expect(result.checks.find((check) => check.name === 'calls')?.problems).toEqual([
      'run({"path":"does-not-exist.py"}) threw a raw TypeError: Cannot read properties of null (reading \'text\'): return a message for the model or throw a DebugGymError (e.g. a WorkspaceError).',
      'run({"path":"../outside-the-repository.txt"}) threw a raw TypeError: Cannot read properties of null (reading \'text\'): return a message for the model or throw a DebugGymError (e.g. a WorkspaceError).',
      'run({"path":"/etc/passwd"}) threw a raw TypeError: Cannot read properties of null (reading \'text\'): return a message for the model or throw a DebugGymError (e.g. a WorkspaceError).',
    ]);
  });

  it('fails a valid call that does not succeed', async () => {
    const described = { ...careless, parameters: { ...careless.parameters, properties: { path: { type: 'string', description: 'File.' } } } } as ToolPluginV1;
    const result = await checkToolConformance(described, { validCalls: [{ path: '' }], probes: false });
    expect(result.problems).toEqual([expect.stringMatching(/^calls: the valid call \{"path":""\} failed: PathNotFoundError \[DG_WORKSPACE_[A-Z_]+\]: /)]);
  });
});

describe('assertToolConformance', () => {
  it('throws one DebugGymError listing every problem', async () => {
    const error = await assertToolConformance({ ...echoTool, parameters: { ...echoTool.parameters, additionalProperties: true } } as ToolPluginV1).catch((caught: unknown) => caught);
    expect(DebugGymError.hasCode(error, NOT_CONFORMANT_CODE)).toBe(true);
    expect((error as Error).message).toBe("Tool plugin 'echo' does not conform:\n  - parameters: additionalProperties is true: misspelled arguments would reach run() unnoticed.");
  });

  it('resolves for a conformant tool', async () => {
    await expect(assertToolConformance(echoTool)).resolves.toBeUndefined();
  });
});
