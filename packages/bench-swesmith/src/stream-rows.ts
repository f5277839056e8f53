import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { BenchmarkDataError } from '@debug-gym/spec';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';

/** One row of a dataset file, or the reason it could not be read. `where` is `line 12`, `item 3`, `row 7`. */
export type StreamedRow = { where: string; row: unknown } | { where: string; error: string };

async function fileKind(path: string): Promise<'parquet' | 'json' | 'jsonl'> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const start = head.subarray(0, bytesRead);
    if (start.subarray(0, 4).toString('latin1') === 'PAR1') return 'parquet';
    return start.toString('utf8').trimStart().startsWith('[') ? 'json' : 'jsonl';
  } finally {
    await handle.close();
  }
}

async function* jsonlRows(path: string): AsyncGenerator<StreamedRow> {
  let pending = '';
  let line = 0;
  const parse = (text: string): StreamedRow | null => {
    line += 1;
    if (text.trim() === '') return null;
    try {
      return { where: `line ${line}`, row: JSON.parse(text) };
    } catch (error) {
      return { where: `line ${line}`, error: `not valid JSON (${(error as Error).message})` };
    }
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = pending + (chunk as string);
    let from = 0;
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      const row = parse(text.slice(from, newline));
      if (row) yield row;
      from = newline + 1;
      newline = text.indexOf('\n', from);
    }
    pending = text.slice(from);
  }
  const last = parse(pending);
  if (last) yield last;
}

/**
 * The items of a top-level JSON array, one at a time: a byte scanner tracks strings and nesting
 * and hands each complete item to JSON.parse (UTF-8 continuation bytes never look like `"{}[],\`).
 */
async function* jsonArrayRows(path: string): AsyncGenerator<StreamedRow> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let item: Buffer[] = [];
  let itemStart = -1;
  let index = 0;
  for await (const raw of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const chunk = raw as Buffer;
    let from = itemStart >= 0 ? 0 : -1;
    for (let i = 0; i < chunk.length; i += 1) {
      const byte = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === 0x5c) escaped = true;
        else if (byte === 0x22) inString = false;
        continue;
      }
      if (byte === 0x22) {
        inString = true;
        if (depth === 1 && itemStart < 0) {
          itemStart = i;
          from = i;
        }
        continue;
      }
      if (byte === 0x5b || byte === 0x7b) {
        if (!started) {
          if (byte !== 0x5b) throw new Error('not a JSON array');
          started = true;
          depth = 1;
          continue;
        }
        if (depth === 1 && itemStart < 0) {
          itemStart = i;
          from = i;
        }
        depth += 1;
      } else if (byte === 0x5d || byte === 0x7d) {
        depth -= 1;
        if (depth === 0) {
          if (itemStart >= 0) {
            item.push(chunk.subarray(from, i));
            yield parseItem(Buffer.concat(item), (index += 1));
          }
          return;
        }
        if (depth === 1 && itemStart >= 0) {
          item.push(chunk.subarray(from, i + 1));
          yield parseItem(Buffer.concat(item), (index += 1));
          item = [];
          itemStart = -1;
          from = -1;
        }
      } else if (byte === 0x2c && depth === 1) {
        if (itemStart >= 0) {
          item.push(chunk.subarray(from, i));
          yield parseItem(Buffer.concat(item), (index += 1));
          item = [];
          itemStart = -1;
          from = -1;
        }
      } else if (depth === 1 && itemStart < 0 && byte > 0x20) {
        itemStart = i;
        from = i;
      }
    }
    if (itemStart >= 0 && from >= 0) item.push(Buffer.from(chunk.subarray(from)));
  }
  if (started) throw new Error('the JSON array is not closed (truncated file?)');
}

function parseItem(bytes: Buffer, index: number): StreamedRow {
  try {
    return { where: `item ${index}`, row: JSON.parse(bytes.toString('utf8')) };
  } catch (error) {
    return { where: `item ${index}`, error: `not valid JSON (${(error as Error).message})` };
  }
}

/** A Parquet file one row group at a time (a 50k-row file is never decoded whole). */
async function* parquetRows(path: string): AsyncGenerator<StreamedRow> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const count = Number(group.num_rows);
    const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd: rowStart + count });
    for (const [offset, row] of rows.entries()) yield { where: `row ${rowStart + offset + 1}`, row };
    rowStart += count;
  }
}

/**
 * The rows of a JSONL file, a JSON list or a Parquet file (told apart by content), streamed: memory
 * holds one row (JSON), or one row group (Parquet), at a time. A row that is not valid JSON is
 * yielded as an error with its line; a file that cannot be read at all throws a BenchmarkDataError.
 */
export async function* streamRows(path: string, benchmark: string, fix: string): AsyncGenerator<StreamedRow> {
  let kind: 'parquet' | 'json' | 'jsonl';
  try {
    kind = await fileKind(path);
  } catch (error) {
    throw new BenchmarkDataError(benchmark, `cannot read the instances file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { file: path, fix, cause: error });
  }
  const source = kind === 'parquet' ? parquetRows(path) : kind === 'json' ? jsonArrayRows(path) : jsonlRows(path);
  try {
    yield* source;
  } catch (error) {
    if (error instanceof BenchmarkDataError) throw error;
    throw new BenchmarkDataError(benchmark, `the ${kind === 'parquet' ? 'Parquet' : kind === 'json' ? 'JSON' : 'JSONL'} file is corrupt (${(error as Error).message})`, { file: path, fix, cause: error });
  }
}
