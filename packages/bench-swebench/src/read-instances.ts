import { readFile } from 'node:fs/promises';
import { BenchmarkDataError } from '@debug-gym/spec';
import { parquetReadObjects } from 'hyparquet';
import { InstanceFormatError, parseInstance, type SwebenchInstance } from './instance.js';

export interface ReadInstancesResult {
  instances: SwebenchInstance[];
  /** Rows that could not be used, with their line (JSONL) or row number. */
  warnings: string[];
  rows: number;
  /** Row numbers (1-based) of broken rows, by instance id when the row had one. */
  broken: Map<string, string>;
}

/** Raw rows of a JSON array, JSONL or Parquet file (told apart by content, not by name). */
export async function readRows(path: string, benchmark: string, fix: string): Promise<{ rows: unknown[]; unit: string; errors: string[] }> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    throw new BenchmarkDataError(benchmark, `cannot read the instances file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { file: path, fix, cause: error });
  }
  if (data.subarray(0, 4).toString('latin1') === 'PAR1') {
    try {
      const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
      return { rows: await parquetReadObjects({ file: buffer }), unit: 'row', errors: [] };
    } catch (error) {
      throw new BenchmarkDataError(benchmark, `the Parquet file is corrupt (${(error as Error).message})`, { file: path, fix, cause: error });
    }
  }
  const text = data.toString('utf8');
  if (text.trimStart().startsWith('[')) {
    try {
      const rows = JSON.parse(text) as unknown;
      if (!Array.isArray(rows)) throw new Error('not an array');
      return { rows, unit: 'item', errors: [] };
    } catch (error) {
      throw new BenchmarkDataError(benchmark, `the JSON file is not a list of instances (${(error as Error).message})`, { file: path, fix, cause: error });
    }
  }
  const rows: unknown[] = [];
  const errors: string[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      rows[index] = JSON.parse(line);
    } catch (error) {
      errors.push(`line ${index + 1} is not valid JSON (${(error as Error).message})`);
    }
  });
  return { rows, unit: 'line', errors };
}

/** Read and check the instances of a file. Broken rows are reported (with their line), not used. */
export async function readInstances(path: string, benchmark: string, fix: string): Promise<ReadInstancesResult> {
  const { rows, unit, errors } = await readRows(path, benchmark, fix);
  const instances: SwebenchInstance[] = [];
  const warnings = errors.map((error) => `${path}: ${error}; the instance is left out. Fix: ${fix}`);
  const broken = new Map<string, string>();
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    try {
      const instance = parseInstance(row);
      if (seen.has(instance.instance_id)) throw new InstanceFormatError(`instance ${instance.instance_id} appears twice`);
      seen.add(instance.instance_id);
      instances.push(instance);
    } catch (error) {
      if (!(error instanceof InstanceFormatError)) throw error;
      const id = typeof (row as { instance_id?: unknown })?.instance_id === 'string' ? (row as { instance_id: string }).instance_id : null;
      const where = `${unit} ${index + 1}${id ? ` (${id})` : ''}`;
      if (id) broken.set(id, `${where}: ${error.message}`);
      warnings.push(`${path}: ${where}: ${error.message}; the instance is left out, so this is not the full dataset. Fix: ${fix}`);
    }
  });
  if (instances.length === 0) throw new BenchmarkDataError(benchmark, 'the file holds no usable instance', { file: path, fix });
  return { instances, warnings, rows: rows.filter((row) => row !== undefined).length + errors.length, broken };
}
