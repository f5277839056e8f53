/**
 * R2E-Gym's grading, as the original debug-gym runs it (debug_gym/gym/envs/r2egym.py after fix #363)
 * over R2E-Gym's own log parser (src/r2egym/repo_analysis/execution_log_parser.py) and reward
 * (src/r2egym/agenthub/runtime/docker.py `_calculate_reward_r2e`). Pure functions: each is tested
 * against the upstream rule it ports (written next to the test).
 */

/** A test's status as the parsers write it. */
export type R2eStatus = 'PASSED' | 'FAILED' | 'ERROR';
export type R2eStatusMap = Record<string, string>;

/** Thrown for an expected-output JSON that cannot be read (the original raises ValueError). */
export class ExpectedOutputError extends Error {}

/**
 * R2E-Gym's `parse_log_pytest`: the lines after "short test summary info" (`pytest -rA`), keyed by
 * the node id without its file (`Class::test` → `Class.test`). A line is PASSED when it contains
 * "PASSED", else FAILED / ERROR the same way (so `XFAIL` / `XPASS` lines are left out).
 */
export function parseLogPytest(log: string | null | undefined): R2eStatusMap {
  return parseLogPytestWithOptionalPasses(log, false).statuses;
}

/**
 * The original debug-gym's parser (`_parse_log_pytest_with_optional_passes`, fix #363): R2E-Gym's,
 * plus `XFAIL` / `XPASS` lines read as PASSED and remembered as "optional passes", tests that an
 * expected-output map written by R2E-Gym's parser (which drops them) may lack.
 */
export function parseLogPytestWithOptionalPasses(log: string | null | undefined, readExpectedFailures = true): { statuses: R2eStatusMap; optionalPasses: Set<string> } {
  const statuses: R2eStatusMap = {};
  const optionalPasses = new Set<string>();
  if (log === null || log === undefined || !log.includes('short test summary info')) return { statuses, optionalPasses };
  const lines = (log.split('short test summary info')[1] as string).trim().split('\n');
  const nameOf = (line: string): string => line.split('::').slice(1).join('.');
  for (const line of lines) {
    if (line.includes('PASSED')) statuses[nameOf(line)] = 'PASSED';
    else if (line.includes('FAILED')) statuses[nameOf(line).split(' - ')[0] as string] = 'FAILED';
    else if (line.includes('ERROR')) statuses[nameOf(line).split(' - ')[0] as string] = 'ERROR';
    else if (readExpectedFailures && (line.includes('XFAIL') || line.includes('XPASS'))) {
      const name = nameOf(line).split(' - ')[0] as string;
      statuses[name] = 'PASSED';
      optionalPasses.add(name);
    }
  }
  return { statuses, optionalPasses };
}

/** R2E-Gym's `decolor_dict_keys`: ANSI colour codes (`\u001b[31m`) out of the keys. */
export function decolorKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(map)) out[key.replace(/\u001b\[\d+m/g, '')] = value;
  return out;
}

/** Keys cut at " - " (a failure message), in sorted order, as both R2E-Gym and the original do. */
function normalizeKeys<T>(map: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(map).sort()) out[key.split(' - ')[0] as string] = map[key] as T;
  return out;
}

/** The original's `_parse_expected_output`: the JSON map, decoloured, keys cut at " - ". */
export function parseExpectedOutput(json: string, source: string): R2eStatusMap {
  let decoded: unknown;
  try {
    decoded = JSON.parse(json);
  } catch {
    throw new ExpectedOutputError(`Invalid R2E expected output JSON from ${source}.`);
  }
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) throw new ExpectedOutputError(`Invalid R2E expected output JSON from ${source}: not an object.`);
  return normalizeKeys(decolorKeys(decoded as Record<string, string>));
}

/** The original's `EvalDetails`. */
export interface R2eEvalDetails {
  parsed_tests: R2eStatusMap;
  n_parsed: number;
  n_passed: number;
  n_failed: number;
  reward: 0 | 1;
  /** Not upstream: the expected tests whose status differs or that are missing, for the report. */
  mismatched: string[];
  /** Not upstream: parsed tests the expected map does not list (XFAIL/XPASS ones it may lack are not counted). */
  unexpected: string[];
}

/**
 * The original's `_calculate_eval_details` (fix #363): reward 1 when the parsed map, without the
 * XFAIL/XPASS tests the expected map does not list, has exactly the expected map's size and every
 * parsed test has its expected status (an empty name is skipped); else 0. `readExpectedFailures:
 * false` gives R2E-Gym's own `_calculate_reward_r2e` (XFAIL/XPASS lines not parsed at all).
 */
export function evalDetails(output: string, expected: R2eStatusMap, options: { readExpectedFailures?: boolean } = {}): R2eEvalDetails {
  const parsed = parseLogPytestWithOptionalPasses(output, options.readExpectedFailures ?? true);
  const parse = normalizeKeys(decolorKeys(parsed.statuses));
  const optional = new Set([...parsed.optionalPasses].map((key) => (Object.keys(decolorKeys({ [key]: 0 }))[0] as string).split(' - ')[0] as string));
  const graded: R2eStatusMap = {};
  for (const [key, status] of Object.entries(parse)) if (key in expected || !optional.has(key)) graded[key] = status;
  let reward: 0 | 1;
  if (Object.keys(graded).length !== Object.keys(expected).length) reward = 0;
  else {
    reward = 1;
    for (const key of Object.keys(graded)) {
      if (!key) continue;
      if (!(key in expected) || graded[key] !== expected[key]) {
        reward = 0;
        break;
      }
    }
  }
  const nPassed = Object.values(parse).filter((status) => status === 'PASSED').length;
  return {
    parsed_tests: parse,
    n_parsed: Object.keys(parse).length,
    n_passed: nPassed,
    n_failed: Object.keys(parse).length - nPassed,
    reward,
    mismatched: Object.keys(expected).filter((key) => graded[key] !== expected[key]),
    unexpected: Object.keys(graded).filter((key) => key && !(key in expected)),
  };
}

/**
 * The instructions: the text between `[ISSUE]` and `[/ISSUE]` when the problem statement has them,
 * else all of it (the original's `instructions`, after R2E-Gym's `get_task_instruction`).
 */
export function instructionsOf(problemStatement: string): string {
  const match = /\[ISSUE\]([\s\S]*)\[\/ISSUE\]/.exec(problemStatement);
  return match ? (match[1] as string) : problemStatement;
}

/** The test command and environment of a repository, as the original's `setup_task` sets them. */
export interface R2eTestCommand {
  entrypoint: string;
  env: Record<string, string>;
}

/**
 * The original's entrypoint per repository: `python -m pytest -W ignore -rA r2e_tests`; pillow with
 * unittest tests runs R2E-Gym's custom runner, orange3 under xvfb-run with `QT_QPA_PLATFORM=minimal`,
 * tornado its unittest runner, scrapy with short DNS timeouts; `PYTHONWARNINGS` always.
 * `testFileCodes`: the hidden tests' sources (pillow's choice depends on them).
 */
export function testCommandOf(repoName: string, testFileCodes: readonly string[] = []): R2eTestCommand {
  const env: Record<string, string> = { PYTHONWARNINGS: 'ignore::UserWarning,ignore::SyntaxWarning' };
  let entrypoint = 'python -m pytest -W ignore -rA r2e_tests';
  if (repoName === 'pillow') {
    if (testFileCodes.some((code) => code.includes('unittest'))) entrypoint = 'python r2e_tests/unittest_custom_runner.py -W ignore';
  } else if (repoName === 'orange3') {
    entrypoint = 'xvfb-run --auto-servernum .venv/bin/python -m pytest -rA r2e_tests -W ignore';
    env.QT_QPA_PLATFORM = 'minimal';
  } else if (repoName === 'tornado') entrypoint = 'python r2e_tests/tornado_unittest_runner.py -W ignore';
  else if (repoName === 'scrapy') env.RES_OPTIONS = 'timeout:1 attempts:1';
  return { entrypoint, env };
}
