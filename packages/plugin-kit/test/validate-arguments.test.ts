import { describe, expect, it } from 'vitest';
import type { JsonSchemaObject } from '@debug-gym/spec';
import { MAX_ARGUMENT_DEPTH, exceedsDepth, usage, validateArguments } from '../src/index.js';

const schema: JsonSchemaObject = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'file' },
    start: { type: ['integer', 'null'] },
    verbose: { type: ['boolean', 'null'] },
  },
  required: ['path'],
};

describe('validateArguments', () => {
  it('accepts a valid object and drops explicit nulls of optional arguments', () => {
    expect(validateArguments('view', schema, { path: 'a.py', start: null })).toEqual({ ok: true, args: { path: 'a.py' } });
  });

  it('parses JSON text arguments and treats empty text as no arguments', () => {
    expect(validateArguments('view', schema, '{"path":"a.py","start":"3"}')).toEqual({ ok: true, args: { path: 'a.py', start: 3 } });
    expect(validateArguments('eval', { type: 'object', properties: {} }, '')).toEqual({ ok: true, args: {} });
    expect(validateArguments('eval', { type: 'object', properties: {} }, null)).toEqual({ ok: true, args: {} });
  });

  it.each([
    [{}, 'missing required argument `path`'],
    [{ path: 'a', extra: 1 }, 'unexpected argument `extra`'],
    [{ path: 'a', start: 'three' }, 'argument `start` must be an integer'],
    [{ path: 3 }, 'argument `path` must be a string'],
    [{ path: null }, 'argument `path` must be a string'],
    ['{not json', 'they are not valid JSON'],
    [[1, 2], 'expected an object of named arguments'],
  ])('explains %j', (input, message) => {
    const result = validateArguments('view', schema, input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toContain(message);
      expect(result.message).toContain('Usage: view(path: string, start?: integer, verbose?: boolean)');
    }
  });

  it('formats a usage line', () => {
    expect(usage('eval', { type: 'object', properties: {} })).toBe('Usage: eval()');
  });
});

describe('argument depth', () => {
  const deep = (depth: number): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i += 1) value = { a: value };
    return value;
  };

  it('refuses arguments nested deeper than the limit, as objects or as JSON text, without overflowing the stack', () => {
    const check = validateArguments('view', schema, { path: deep(10_000) });
    expect(check).toMatchObject({ ok: false, message: expect.stringContaining(`nested too deeply (more than ${MAX_ARGUMENT_DEPTH} levels)`) });
    const text = `{"path":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    expect(validateArguments('view', schema, text)).toMatchObject({ ok: false, message: expect.stringContaining('nested too deeply') });
  });

  it('counts the levels of objects and arrays exactly', () => {
    expect(exceedsDepth(deep(3), 3)).toBe(false);
    expect(exceedsDepth(deep(4), 3)).toBe(true);
    expect(exceedsDepth([[[]]], 3)).toBe(false);
    expect(exceedsDepth([[[[]]]], 3)).toBe(true);
    expect(exceedsDepth('text', 0)).toBe(false);
    expect(exceedsDepth({ wide: Array.from({ length: 1000 }, () => ({})) }, 3)).toBe(false);
  });
});
