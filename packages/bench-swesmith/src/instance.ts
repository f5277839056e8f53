import { isAbsolute, resolve } from 'node:path';
import { LOG_PARSERS, type LogParserName } from './harness.js';

/**
 * One SWE-smith task instance: the dataset's fields (`SWE-bench/SWE-smith`: instance_id, repo,
 * patch, FAIL_TO_PASS, PASS_TO_PASS, created_at, image_name, base_commit, problem_statement), plus
 * the fields this package accepts for a repository that is a local folder instead of an image.
 */
export interface SwesmithInstance {
  instance_id: string;
  /** The SWE-smith mirror (`swesmith/owner__name.abcd1234`), or any name for a local repository. */
  repo: string;
  /** The bug, as a unified diff against the clean repository. The reference fix is its reverse. */
  patch: string;
  FAIL_TO_PASS: string[];
  PASS_TO_PASS: string[];
  /** `swesmith.<arch>.<owner__name>.<commit8>`: names the repository, its commit and its image. */
  image_name?: string;
  base_commit?: string;
  problem_statement: string;
  created_at?: string;
  /**
   * Extra field (not upstream): the clean repository as a local folder (absolute, or relative to the
   * dataset file's folder). With it the task runs on any terminal, without an image.
   */
  repo_path?: string;
  /** Extra field (SWE-smith's `test_cmd` key): the test command, when the image name does not name a known repository. */
  test_cmd?: string;
  /** Extra field: which of SWE-smith's log parsers reads the test output (default: the repository's, else pytest). */
  log_parser?: LogParserName;
}

export class InstanceFormatError extends Error {}

function testList(value: unknown, field: string): string[] {
  let decoded = value;
  if (typeof value === 'string') {
    try {
      decoded = JSON.parse(value);
    } catch {
      throw new InstanceFormatError(`${field} is not a JSON list of test ids`);
    }
  }
  // Parquet list columns may come back as typed or plain arrays.
  if (decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded) && Symbol.iterator in decoded) decoded = [...(decoded as Iterable<unknown>)];
  if (!Array.isArray(decoded) || !decoded.every((item) => typeof item === 'string')) {
    throw new InstanceFormatError(`${field} must be a list of test ids (or its JSON text)`);
  }
  return decoded as string[];
}

const str = (row: Record<string, unknown>, field: string): string | undefined => (typeof row[field] === 'string' ? (row[field] as string) : undefined);

/**
 * Check and decode one raw row. FAIL_TO_PASS / PASS_TO_PASS may be lists (as on the Hub) or JSON
 * strings. `baseDir` resolves a relative `repo_path`.
 */
export function parseInstance(raw: unknown, baseDir: string = process.cwd()): SwesmithInstance {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InstanceFormatError('an instance must be a JSON object');
  const row = raw as Record<string, unknown>;
  for (const field of ['instance_id', 'patch'] as const) {
    if (typeof row[field] !== 'string' || row[field] === '') throw new InstanceFormatError(`field '${field}' is missing or not a non-empty string`);
  }
  if (row.FAIL_TO_PASS === undefined) throw new InstanceFormatError("field 'FAIL_TO_PASS' is missing");
  const imageName = str(row, 'image_name');
  const repoPath = str(row, 'repo_path');
  if (!imageName && !repoPath) throw new InstanceFormatError("field 'image_name' is missing (or give 'repo_path', a local folder of the repository)");
  const parser = str(row, 'log_parser');
  if (parser !== undefined && !(parser in LOG_PARSERS)) {
    throw new InstanceFormatError(`log_parser '${parser}' is not one of SWE-smith's: ${Object.keys(LOG_PARSERS).join(', ')}`);
  }
  const instance: SwesmithInstance = {
    instance_id: row.instance_id as string,
    repo: str(row, 'repo') ?? '',
    patch: row.patch as string,
    FAIL_TO_PASS: testList(row.FAIL_TO_PASS, 'FAIL_TO_PASS'),
    PASS_TO_PASS: testList(row.PASS_TO_PASS ?? [], 'PASS_TO_PASS'),
    problem_statement: str(row, 'problem_statement') ?? '',
  };
  if (instance.FAIL_TO_PASS.length === 0) throw new InstanceFormatError('FAIL_TO_PASS is empty: nothing tells the bug apart from its fix');
  if (imageName) instance.image_name = imageName;
  if (repoPath) instance.repo_path = isAbsolute(repoPath) ? repoPath : resolve(baseDir, repoPath);
  for (const field of ['base_commit', 'created_at', 'test_cmd'] as const) {
    const value = str(row, field);
    if (value) instance[field] = value;
  }
  if (parser) instance.log_parser = parser as LogParserName;
  return instance;
}
