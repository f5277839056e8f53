import { describe, expect, test } from 'vitest';
import { createDispatcher, MAX_REQUEST_DEPTH } from '../src/index.js';
import { readLines, type InputLine } from '../src/serve/read-lines.js';

async function collect(chunks: Array<string | Buffer>, maxBytes: number): Promise<InputLine[]> {
  async function* source(): AsyncGenerator<string | Buffer> {
    yield* chunks;
  }
  const lines: InputLine[] = [];
  for await (const line of readLines(source(), maxBytes)) lines.push(line);
  return lines;
}

describe('readLines', () => {
  test('splits on newlines across chunks, drops a trailing \\r and yields a last unterminated line', async () => {
    expect(await collect(['ab', 'c\r\nd', 'e\n\nf'], 100)).toEqual([{ line: 'abc' }, { line: 'de' }, { line: '' }, { line: 'f' }]);
  });

  test('keeps multi-byte characters split between chunks', async () => {
    const bytes = Buffer.from('é\n');
    expect(await collect([bytes.subarray(0, 1), bytes.subarray(1)], 100)).toEqual([{ line: 'é' }]);
  });

  test('reports a line over the limit with its size, drops it, and goes on with the next line', async () => {
    expect(await collect(['12345', '67890', 'ab\nok\n'], 8)).toEqual([{ tooLong: true, bytes: 12 }, { line: 'ok' }]);
    expect(await collect(['123456789'], 8)).toEqual([{ tooLong: true, bytes: 9 }]);
    expect(await collect(['12345678\n'], 8)).toEqual([{ line: '12345678' }]);
  });
});

describe('the dispatcher and hostile requests', () => {
  const dispatcher = createDispatcher({ echo: async (params) => params }, () => ({ code: -32603, message: 'internal' }));

  test('a request nested deeper than the limit gets -32600 with its id, a request at the limit is served', async () => {
    const deep = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const tooDeep = JSON.parse((await dispatcher.handleLine(`{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":${deep(20_000)}}}`)) as string);
    expect(tooDeep).toMatchObject({ id: 7, error: { code: -32600, message: `Invalid request: nested too deeply (more than ${MAX_REQUEST_DEPTH} levels of objects and arrays).` } });
    const fits = JSON.parse((await dispatcher.handleLine(`{"jsonrpc":"2.0","id":8,"method":"echo","params":{"a":${deep(MAX_REQUEST_DEPTH - 2)}}}`)) as string);
    expect(fits).toMatchObject({ id: 8, result: { a: expect.any(Array) } });
  });

  test('a result that cannot be serialized becomes an internal error, not a crash', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const failing = createDispatcher({ cycle: async () => cyclic }, () => ({ code: -32603, message: 'internal' }));
    expect(JSON.parse((await failing.handleLine('{"jsonrpc":"2.0","id":1,"method":"cycle"}')) as string)).toMatchObject({
      id: 1,
      error: { code: -32603, message: expect.stringContaining('could not be serialized') },
    });
  });
});
