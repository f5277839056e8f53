/**
 * SWE-smith's evaluation harness as pure functions, ported rule by rule from SWE-bench/SWE-smith
 * @ cf2e649 (the version the original debug-gym's `swe_smith.py` imports): `swesmith/utils.py`
 * (image names), `swesmith/harness/utils.py` (`get_test_command`), `swesmith/harness/log_parsers.py`
 * and `swesmith/harness/grading.py` (`get_valid_report`, `get_eval_tests_report`, `get_eval_report`),
 * plus SWE-bench's `get_resolution_status`, which SWE-smith imports.
 */
import { MAP_REPO_TO_SPECS, TEST_PYTEST, type RepoSpec } from './specs.js';

/** swebench.harness.constants.TestStatus (SWE-smith grades with SWE-bench's statuses). */
export type TestStatus = 'FAILED' | 'PASSED' | 'SKIPPED' | 'ERROR' | 'XFAIL';
/** In the enum's order: parse_log_pytest tries them in this order and the last match wins. */
export const TEST_STATUSES: readonly TestStatus[] = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'];
export type StatusMap = Record<string, TestStatus>;

/** SWE-smith's eval markers (swesmith/constants.py) and SWE-bench's failure markers. */
export const TEST_OUTPUT_START = '>>>>> Start Test Output';
export const TEST_OUTPUT_END = '>>>>> End Test Output';
export const APPLY_PATCH_FAIL = '>>>>> Patch Apply Failed';
export const TESTS_TIMEOUT = '>>>>> Tests Timed Out';

/** swesmith.build_repo.download_images: the Docker Hub organisation and tag of the images. */
export const DOCKER_ORG = 'jyangballin';
export const TAG = 'latest';

export class HarnessError extends Error {}

/**
 * `get_repo_commit_from_image_name`: `swesmith.x86_64.owner__name.abcd1234` → the repository as
 * MAP_REPO_TO_SPECS spells it (image names are lowercase) and the full commit the prefix names.
 * Throws when the repository or commit is not in the table (upstream: KeyError / ValueError).
 */
export function repoCommitFromImageName(imageName: string): { repo: string; commit: string; spec: RepoSpec } {
  const parts = imageName.split('.');
  const tail = parts.length > 2 ? parts.slice(2).join('.') : (parts.at(-1) as string);
  const cut = tail.lastIndexOf('.');
  let repo = (cut < 0 ? tail : tail.slice(0, cut)).replaceAll('__', '/');
  const partial = cut < 0 ? tail : tail.slice(cut + 1);
  for (const known of MAP_REPO_TO_SPECS.keys()) {
    if (known.toLowerCase() === repo) {
      repo = known;
      break;
    }
  }
  const commits = MAP_REPO_TO_SPECS.get(repo);
  if (!commits) throw new HarnessError(`image ${imageName}: repository ${repo} is not one of SWE-smith's ${MAP_REPO_TO_SPECS.size} repositories`);
  for (const [commit, spec] of commits) if (commit.startsWith(partial)) return { repo, commit, spec };
  throw new HarnessError(`image ${imageName}: commit ${partial} not found for repository ${repo}`);
}

/** `get_image_name` (arch given): `swesmith.<arch>.<owner__name lowercased>.<commit[:8]>`. */
export function imageNameOf(repo: string, commit: string, arch = 'x86_64'): string {
  return `swesmith.${arch}.${repo.replaceAll('/', '__').toLowerCase()}.${commit.slice(0, 8)}`;
}

/** The Docker Hub reference of an image name: `<org>/<name with __ → _1776_>:latest` (as download_images pulls it). */
export function dockerImageRef(imageName: string, namespace: string = DOCKER_ORG): string {
  return `${namespace}/${imageName.replaceAll('__', '_1776_')}:${TAG}`;
}

/** What `get_test_command` reads from an instance. */
export interface TestCommandInput {
  FAIL_TO_PASS?: readonly string[];
  /** The repository's test command (MAP_REPO_TO_SPECS[repo][commit].test_cmd). */
  testCmd: string;
  repo: string;
}

/**
 * `get_test_command` for evaluation instances (they have FAIL_TO_PASS): with a pytest command,
 * mypy gets `-k "<case> or <case>"` of its FAIL_TO_PASS cases and no directives; every other
 * repository gets the files of its FAIL_TO_PASS tests appended (upstream: `list(set(...))`, an
 * arbitrary order; here first-seen order). A non-pytest command (tornado, python-slugify, gin) runs
 * as it is. Returns the command and the test files (the directives).
 */
export function testCommand(input: TestCommandInput): { command: string; directives: string[] } {
  const f2p = input.FAIL_TO_PASS;
  if (f2p && input.testCmd.includes('pytest')) {
    if (input.repo === 'python/mypy') {
      const keys = f2p.map((test) => test.slice(test.lastIndexOf('::') >= 0 ? test.lastIndexOf('::') + 2 : 0)).join(' or ');
      return { command: `${input.testCmd} "${keys}"`, directives: [] };
    }
    const files = [...new Set(f2p.map((test) => test.split('::', 1)[0] as string))];
    return { command: `${input.testCmd} ${files.join(' ')}`, directives: files };
  }
  return { command: input.testCmd, directives: [] };
}

// ---------------------------------------------------------------- log parsers (harness/log_parsers.py)

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const splitWs = (line: string): string[] => line.trim().split(/\s+/).filter(Boolean);

/** parse_log_pytest: `^(\S+)(\s+)<STATUS>` on each line (verbose pytest: `path::test PASSED [ 10%]`). */
export function parseLogPytest(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    for (const status of TEST_STATUSES) {
      // eslint-disable-next-line no-restricted-syntax -- built from the fixed status words, linear (no quantifiers that can trade characters)
      const match = new RegExp(`^(\\S+)(\\s+)${status}`).exec(line);
      if (match) map[match[1] as string] = status;
    }
  }
  return map;
}

/** parse_log_gotest: `--- PASS|FAIL|SKIP: name (time)` on the stripped line. */
export function parseLogGotest(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    const found = gotestLine(line.trim());
    if (found) map[found.name] = found.status;
  }
  return map;
}

const GOTEST_STATUS = { PASS: 'PASSED', FAIL: 'FAILED', SKIP: 'SKIPPED' } as const;

/**
 * The harness's `^--- (PASS|FAIL|SKIP): (.+) \((.+)\)$` on one line, as a scan: that expression restarts its
 * search at every ` (` of the line, quadratic on a line the code under test prints. The greedy name ends at
 * the last ` (` that leaves at least one character before the final `)`.
 */
export function gotestLine(line: string): { name: string; status: StatusMap[string] } | null {
  if (!line.startsWith('--- ') || !line.endsWith(')')) return null;
  const colon = line.indexOf(': ', 4);
  const word = line.slice(4, colon);
  if (colon < 0 || !Object.hasOwn(GOTEST_STATUS, word)) return null;
  const status = GOTEST_STATUS[word as keyof typeof GOTEST_STATUS];
  const body = line.slice(colon + 2, -1);
  if (/[\r\u2028\u2029]/.test(body)) return null;
  const open = body.lastIndexOf(' (', body.length - 3);
  return open >= 1 ? { name: body.slice(0, open), status } : null;
}

/** parse_log_mypy: a line containing PASSED (else FAILED) names its test as its last word. */
export function parseLogMypy(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    for (const status of ['PASSED', 'FAILED'] as const) {
      if (line.includes(status)) {
        map[splitWs(line).at(-1) as string] = status;
        break;
      }
    }
  }
  return map;
}

/** parse_log_python_slugify: unittest's `name ... ok|FAIL|ERROR`. */
export function parseLogPythonSlugify(log: string): StatusMap {
  const map: StatusMap = {};
  const pattern = "^([a-zA-Z0-9_\\-,\\.\\s\\(\\)']+)\\s\\.{3}\\s";
  for (const line of log.split('\n')) {
    // eslint-disable-next-line no-restricted-syntax -- built from the fixed status words, linear (no quantifiers that can trade characters)
    const ok = new RegExp(`${pattern}ok$`).exec(line);
    if (ok) {
      map[ok[1] as string] = 'PASSED';
      continue;
    }
    for (const [keyword, status] of [
      ['FAIL', 'FAILED'],
      ['ERROR', 'ERROR'],
    ] as const) {
      // eslint-disable-next-line no-restricted-syntax -- built from the fixed status words, linear (no quantifiers that can trade characters)
      const match = new RegExp(`${pattern}${keyword}$`).exec(line);
      if (match) map[match[1] as string] = status;
    }
  }
  return map;
}

/** parse_log_tornado: `... ok`, `... skipped `, and `ERROR:`/`FAIL:` lines (both FAILED). */
export function parseLogTornado(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    if (line.endsWith('... ok')) map[line.split(' ... ')[0] as string] = 'PASSED';
    else if (line.includes(' ... skipped ')) map[line.split(' ... ')[0] as string] = 'SKIPPED';
    else if (line.startsWith('ERROR:') || line.startsWith('FAIL:')) map[splitWs(line).slice(1, 3).join(' ')] = 'FAILED';
  }
  return map;
}

/** parse_log_paramiko: `-rA` summary lines, `<STATUS> <test>`. */
export function parseLogParamiko(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    for (const status of TEST_STATUSES) {
      // eslint-disable-next-line no-restricted-syntax -- built from the fixed status words, linear (no quantifiers that can trade characters)
      const match = new RegExp(`^${escapeRe(status)}\\s(\\S+)`).exec(line);
      if (match) map[match[1] as string] = status;
    }
  }
  return map;
}

/** parse_log_autograd: pytest-xdist lines, `[gwN] <STATUS> <test>`. */
export function parseLogAutograd(log: string): StatusMap {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    for (const status of TEST_STATUSES) {
      // eslint-disable-next-line no-restricted-syntax -- built from the fixed status words, linear (no quantifiers that can trade characters)
      const match = new RegExp(`^\\[gw\\d\\]\\s${status}\\s(\\S+)`).exec(line);
      if (match) map[match[1] as string] = status;
    }
  }
  return map;
}

export type LogParser = (log: string) => StatusMap;

export const LOG_PARSERS = {
  pytest: parseLogPytest,
  gotest: parseLogGotest,
  mypy: parseLogMypy,
  python_slugify: parseLogPythonSlugify,
  tornado: parseLogTornado,
  paramiko: parseLogParamiko,
  autograd: parseLogAutograd,
} as const satisfies Record<string, LogParser>;
export type LogParserName = keyof typeof LOG_PARSERS;

/** MAP_REPO_TO_PARSER (every other repository: parse_log_pytest). */
export const MAP_REPO_TO_PARSER: Readonly<Record<string, LogParserName>> = {
  'gin-gonic/gin': 'gotest',
  'HIPS/autograd': 'autograd',
  'paramiko/paramiko': 'paramiko',
  'python/mypy': 'mypy',
  'tornadoweb/tornado': 'tornado',
  'un33k/python-slugify': 'python_slugify',
};

export function parserNameForRepo(repo: string): LogParserName {
  return MAP_REPO_TO_PARSER[repo] ?? 'pytest';
}

// ---------------------------------------------------------------- grading (harness/grading.py)

/** `read_test_output`: the text between the eval script's markers, or null when the run failed. */
export function readTestOutput(content: string): { output: string | null; found: boolean } {
  if (content.includes(APPLY_PATCH_FAIL) || content.includes(TESTS_TIMEOUT)) return { output: null, found: false };
  if (!content.includes(TEST_OUTPUT_START) || !content.includes(TEST_OUTPUT_END)) return { output: content, found: false };
  const start = `+ : '${TEST_OUTPUT_START}'`;
  const end = `+ : '${TEST_OUTPUT_END}'`;
  const startIndex = content.indexOf(start);
  const endIndex = content.indexOf(end);
  if (startIndex > endIndex) throw new HarnessError('Invalid test output - Start and end markers are not in correct order');
  return { output: content.slice(startIndex, endIndex).slice(start.length), found: true };
}

export interface TestsReport {
  FAIL_TO_PASS: { success: string[]; failure: string[] };
  PASS_TO_PASS: { success: string[]; failure: string[] };
}

export interface EvalTestsOptions {
  /**
   * A FAIL_TO_PASS test absent from the log. SWE-smith's harness: `pass` ("assume silent success").
   * The original debug-gym: `fail` ("*Do not* assume silent success"), the default here: with silent
   * success, code that stops the test file from being collected "resolves" the task.
   */
  missingFailToPass?: 'pass' | 'fail';
}

/**
 * `get_eval_tests_report` (resolution and maintenance only): a test passes when it is PASSED or
 * XFAIL, or absent from the log (silent success; see `missingFailToPass` for FAIL_TO_PASS); it
 * fails when it is FAILED or ERROR; anything else (SKIPPED) is neither and does not count.
 */
export function evalTestsReport(map: StatusMap, gold: { FAIL_TO_PASS: readonly string[]; PASS_TO_PASS: readonly string[] }, options: EvalTestsOptions = {}): TestsReport {
  const missingF2P = options.missingFailToPass ?? 'fail';
  const sort = (tests: readonly string[], missingPasses: boolean): { success: string[]; failure: string[] } => {
    const success: string[] = [];
    const failure: string[] = [];
    for (const test of tests) {
      const status = map[test];
      if (status === undefined) (missingPasses ? success : failure).push(test);
      else if (status === 'PASSED' || status === 'XFAIL') success.push(test);
      else if (status === 'FAILED' || status === 'ERROR') failure.push(test);
    }
    return { success, failure };
  };
  return { FAIL_TO_PASS: sort(gold.FAIL_TO_PASS, missingF2P === 'pass'), PASS_TO_PASS: sort(gold.PASS_TO_PASS, true) };
}

export type ResolutionStatus = 'RESOLVED_FULL' | 'RESOLVED_PARTIAL' | 'RESOLVED_NO';

/** SWE-bench's `get_resolution_status`: a rate of 1 when nothing counted; FULL when both rates are 1. */
export function resolutionStatus(report: TestsReport): ResolutionStatus {
  const rate = ({ success, failure }: { success: string[]; failure: string[] }): number =>
    success.length + failure.length === 0 ? 1 : success.length / (success.length + failure.length);
  const f2p = rate(report.FAIL_TO_PASS);
  const p2p = rate(report.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return 'RESOLVED_FULL';
  if (f2p < 1 && f2p > 0 && p2p === 1) return 'RESOLVED_PARTIAL';
  return 'RESOLVED_NO';
}

/** `get_eval_report`'s `filter_irrelevant_tests`: only the tests under the command's test files (all when none). */
export function filterIrrelevantTests(tests: readonly string[], testFiles: readonly string[]): string[] {
  return testFiles.length > 0 ? tests.filter((test) => testFiles.some((file) => test.startsWith(file))) : [...tests];
}

/**
 * `get_valid_report`: how SWE-smith derives FAIL_TO_PASS / PASS_TO_PASS from a run with the bug
 * ("pre-gold") and one without ("post-gold"). With minimal testing, tests absent from the bug run are ignored.
 */
export function validReport(preGold: StatusMap, postGold: StatusMap, minimalTesting = false): Record<'FAIL_TO_PASS' | 'PASS_TO_PASS' | 'FAIL_TO_FAIL' | 'PASS_TO_FAIL', string[]> {
  const report = { FAIL_TO_PASS: [] as string[], PASS_TO_PASS: [] as string[], FAIL_TO_FAIL: [] as string[], PASS_TO_FAIL: [] as string[] };
  for (const [test, post] of Object.entries(postGold)) {
    const pre = preGold[test];
    if (pre === undefined) {
      if (minimalTesting) continue;
      if (post === 'PASSED') report.FAIL_TO_PASS.push(test);
      else if (post === 'FAILED') report.PASS_TO_FAIL.push(test);
    } else if (pre === 'PASSED' && post === 'PASSED') report.PASS_TO_PASS.push(test);
    else if (pre === 'FAILED' && post === 'PASSED') report.FAIL_TO_PASS.push(test);
    else if (pre === 'FAILED' && post === 'FAILED') report.FAIL_TO_FAIL.push(test);
    else if (pre === 'PASSED' && post === 'FAILED') report.PASS_TO_FAIL.push(test);
  }
  for (const [test, pre] of Object.entries(preGold)) if (pre === 'FAILED' && !(test in postGold)) report.FAIL_TO_PASS.push(test);
  return report;
}

export { TEST_PYTEST };
