import { isAbsolute, resolve } from 'node:path';
import { ExpectedOutputError, parseExpectedOutput, type R2eStatusMap } from './harness.js';
import type { ParsedCommit } from './parsed-commit.js';

/**
 * One R2E-Gym instance: the dataset's fields (`R2E-Gym/R2E-Gym-Lite`, R2E-Gym's `DatasetRow`:
 * repo_name, docker_image, commit_hash, parsed_commit_content, execution_result_content,
 * modified_files, modified_entity_summaries, relevant_files, num_non_test_files,
 * num_non_test_func_methods, num_non_test_lines, prompt, problem_statement, expected_output_json),
 * decoded, plus what this package accepts for a repository that is a local folder.
 */
export interface R2egymInstance {
  /** The image name without its namespace (`pandas_final:8a5f29…`), as the original names tasks. */
  instance_id: string;
  repo_name: string;
  /** `namanjain12/<repo>_final:<commit_hash>`: the repository at the commit before the fix in /testbed, the hidden tests in /r2e_tests. */
  docker_image: string;
  /** The fixing commit. */
  commit_hash: string;
  problem_statement: string;
  /** Expected status of each hidden test after the fix (decoded, keys normalized). */
  expected: R2eStatusMap;
  /** The raw `expected_output_json` (for reports). */
  expected_output_json: string;
  /** The fixing commit, when `parsed_commit_content` is present and readable. */
  parsed_commit?: ParsedCommit;
  /** The hidden tests (`execution_result_content`'s `test_file_names` / `test_file_codes`). */
  test_files: Array<{ name: string; code: string }>;
  modified_files: string[];
  /** Extra field (not upstream): the repository at the commit before the fix, as a local folder; the task then runs on any terminal. */
  repo_path?: string;
}

export class InstanceFormatError extends Error {}

const str = (row: Record<string, unknown>, field: string): string | undefined => (typeof row[field] === 'string' ? (row[field] as string) : undefined);

function stringList(value: unknown): string[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Symbol.iterator in value) value = [...(value as Iterable<unknown>)];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The instance id the original derives from `docker_image` (`extract_instance_id`: all after the first `/`). */
export function instanceIdOf(dockerImage: string): string {
  const slash = dockerImage.indexOf('/');
  return slash < 0 ? dockerImage : dockerImage.slice(slash + 1);
}

/** Check and decode one raw row; `baseDir` resolves a relative `repo_path`. */
export function parseInstance(raw: unknown, baseDir: string = process.cwd()): R2egymInstance {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InstanceFormatError('an instance must be a JSON object');
  const row = raw as Record<string, unknown>;
  const dockerImage = str(row, 'docker_image');
  if (!dockerImage) throw new InstanceFormatError("field 'docker_image' is missing or not a string");
  const commitHash = str(row, 'commit_hash');
  if (!commitHash) throw new InstanceFormatError("field 'commit_hash' is missing or not a string");
  const expectedJson = str(row, 'expected_output_json');
  if (!expectedJson) {
    // The original falls back to the image's /root/expected_test_output.json; the hidden tests must come from the row here.
    throw new InstanceFormatError("field 'expected_output_json' is missing or empty (the expected status of each hidden test)");
  }
  let expected: R2eStatusMap;
  try {
    expected = parseExpectedOutput(expectedJson, "the row's expected_output_json");
  } catch (error) {
    if (error instanceof ExpectedOutputError) throw new InstanceFormatError(error.message);
    throw error;
  }
  if (Object.keys(expected).length === 0) throw new InstanceFormatError('expected_output_json lists no test: nothing tells the bug apart from its fix');
  const executionJson = str(row, 'execution_result_content');
  if (!executionJson) throw new InstanceFormatError("field 'execution_result_content' is missing (it holds the hidden tests: test_file_names, test_file_codes)");
  let execution: { test_file_names?: unknown; test_file_codes?: unknown };
  try {
    execution = JSON.parse(executionJson) as typeof execution;
  } catch {
    throw new InstanceFormatError('execution_result_content is not valid JSON');
  }
  const names = stringList(execution.test_file_names);
  const codes = stringList(execution.test_file_codes);
  if (names.length === 0 || names.length !== codes.length) throw new InstanceFormatError('execution_result_content must hold as many test_file_names as test_file_codes (at least one)');
  for (const name of names) if (name.includes('/') || name === '..' || name === '.' || name === '') throw new InstanceFormatError(`hidden test file name '${name}' is not a plain file name`);
  const instance: R2egymInstance = {
    instance_id: instanceIdOf(dockerImage),
    repo_name: str(row, 'repo_name') ?? '',
    docker_image: dockerImage,
    commit_hash: commitHash,
    problem_statement: str(row, 'problem_statement') ?? '',
    expected,
    expected_output_json: expectedJson,
    test_files: names.map((name, index) => ({ name, code: codes[index] as string })),
    modified_files: stringList(row.modified_files),
  };
  const commitJson = str(row, 'parsed_commit_content');
  if (commitJson) {
    try {
      const commit = JSON.parse(commitJson) as ParsedCommit;
      if (Array.isArray(commit.file_diffs)) instance.parsed_commit = commit;
    } catch {
      throw new InstanceFormatError('parsed_commit_content is not valid JSON');
    }
  }
  const repoPath = str(row, 'repo_path');
  if (repoPath) instance.repo_path = isAbsolute(repoPath) ? repoPath : resolve(baseDir, repoPath);
  return instance;
}
