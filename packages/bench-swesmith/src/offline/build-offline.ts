import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { dockerImageRef, imageNameOf, parseLogPytest, repoCommitFromImageName, validReport } from '../harness.js';

/**
 * One synthesized bug, written as SWE-smith's procedural modifiers write theirs (a one-line change
 * of a function), over a real project's source.
 */
export interface OfflineBug {
  /** SWE-smith's id suffix: `<modifier>__<8 chars>`. */
  suffix: string;
  file: string;
  find: string;
  replace: string;
  problem: string;
}

/**
 * Bugs over xmltodict 0.13.0 (Debian's `python-xmltodict` source package; upstream
 * martinblech/xmltodict, one of SWE-smith's repositories), each a modifier SWE-smith uses.
 */
export const OFFLINE_BUGS: readonly OfflineBug[] = [
  {
    suffix: 'func_pm_ctrl_invert_if__k3r8vq2d',
    file: 'xmltodict.py',
    find: '            if isinstance(value, list):\n',
    replace: '            if not isinstance(value, list):\n',
    problem: 'Repeated XML elements are no longer collected into a list: parsing `<a><b>1</b><b>2</b><b>3</b></a>` fails or nests lists instead of giving `{"a": {"b": ["1", "2", "3"]}}`.',
  },
  {
    suffix: 'func_pm_op_change__7fwm1c0x',
    file: 'xmltodict.py',
    find: '                data = data.strip() or None\n',
    replace: '                data = data.lstrip() or None\n',
    problem: 'With strip_whitespace (the default), trailing whitespace of text nodes is kept: `<a>hello   </a>` parses to "hello   " instead of "hello".',
  },
  {
    suffix: 'func_pm_op_swap__q9d2nb4e',
    file: 'xmltodict.py',
    find: '            return key in self.force_list\n',
    replace: '            return key not in self.force_list\n',
    problem: 'force_list given as a tuple of keys is applied to every other key instead of the listed ones.',
  },
];

export interface OfflineDataset {
  /** Image instances in SWE-smith's exact schema (the repository in the image at /testbed). */
  jsonl: string;
  /** The same instances over the local folder (`repo_path`, relative to this file), for any terminal. */
  localJsonl: string;
  /** The clean repository (one commit, as SWE-smith's mirrors). */
  repoDir: string;
  rows: Record<string, unknown>[];
  /** The image built (`--image` given), tagged as the instances name it under `namespace`. */
  image: string | null;
}

const REPO = 'martinblech/xmltodict';
/** The commit SWE-smith's table pins for xmltodict: the image name must name it. */
const COMMIT = '0952f382';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=swesmith', '-c', 'user.email=swesmith@anon.com', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });

function runTests(repo: string, python: string, timeoutMs: number): ReturnType<typeof parseLogPytest> {
  const run = spawnSync(python, ['-m', 'pytest', '--disable-warnings', '--color=no', '--tb=no', '--verbose', '-p', 'no:cacheprovider'], { cwd: repo, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  if (run.error) throw run.error;
  return parseLogPytest(run.stdout);
}

/**
 * SWE-smith instances built offline over a real project: the source (e.g. `apt-get source
 * python-xmltodict`, unpacked) becomes a one-commit repository; each bug is applied, the test suite
 * run with and without it (`python -m pytest`, SWE-smith's TEST_PYTEST flags) and FAIL_TO_PASS /
 * PASS_TO_PASS taken as SWE-smith's `get_valid_report` takes them. With `baseImage`, an image with
 * the clean repository at /testbed is built from it and tagged `<namespace>/swesmith.x86_64.
 * martinblech_1776_xmltodict.0952f382:latest`, as the instances' `image_name` names it.
 */
export function buildOfflineInstances(options: {
  sourceDir: string;
  outDir: string;
  python?: string;
  baseImage?: string;
  namespace?: string;
  bugs?: readonly OfflineBug[];
  timeoutMs?: number;
}): OfflineDataset {
  const python = options.python ?? 'python3';
  const repoDir = join(options.outDir, 'repos', 'martinblech__xmltodict');
  rmSync(repoDir, { recursive: true, force: true });
  mkdirSync(repoDir, { recursive: true });
  cpSync(options.sourceDir, repoDir, { recursive: true, filter: (source) => !/\/(debian|\.pc|\.git|__pycache__|\.pytest_cache)$/.test(source) });
  git(repoDir, 'init', '-q', '-b', 'main');
  git(repoDir, 'add', '-A');
  git(repoDir, 'commit', '-qm', 'Initial commit');
  const baseCommit = git(repoDir, 'rev-parse', 'HEAD').trim();
  const imageName = imageNameOf(REPO, repoCommitFromImageName(`swesmith.x86_64.martinblech__xmltodict.${COMMIT}`).commit);
  const scratch = mkdtempSync(join(tmpdir(), 'swesmith-offline-'));
  const rows: Record<string, unknown>[] = [];
  try {
    const clean = join(scratch, 'clean');
    cpSync(repoDir, clean, { recursive: true });
    const postGold = runTests(clean, python, options.timeoutMs ?? 120_000);
    if (Object.keys(postGold).length === 0) throw new Error(`no test ran in ${options.sourceDir} with ${python} -m pytest`);
    for (const bug of options.bugs ?? OFFLINE_BUGS) {
      const path = join(repoDir, bug.file);
      const original = readFileSync(path, 'utf8');
      if (original.split(bug.find).length !== 2) throw new Error(`${bug.suffix}: '${bug.find.trim()}' must occur exactly once in ${bug.file}`);
      writeFileSync(path, original.replace(bug.find, bug.replace));
      const patch = git(repoDir, 'diff');
      writeFileSync(path, original);
      const buggy = join(scratch, bug.suffix);
      cpSync(repoDir, buggy, { recursive: true });
      writeFileSync(join(buggy, bug.file), original.replace(bug.find, bug.replace));
      const preGold = runTests(buggy, python, options.timeoutMs ?? 120_000);
      const report = validReport(preGold, postGold);
      if (report.FAIL_TO_PASS.length === 0) throw new Error(`${bug.suffix}: no test fails with the bug, so it is not a valid SWE-smith instance`);
      rows.push({
        instance_id: `martinblech__xmltodict.${COMMIT}.${bug.suffix}`,
        repo: `swesmith/martinblech__xmltodict.${COMMIT}`,
        patch,
        FAIL_TO_PASS: report.FAIL_TO_PASS,
        PASS_TO_PASS: report.PASS_TO_PASS,
        created_at: '2025-01-01T00:00:00.000000',
        image_name: imageName,
        base_commit: baseCommit,
        problem_statement: bug.problem,
      });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  mkdirSync(options.outDir, { recursive: true });
  const jsonl = join(options.outDir, 'swesmith-offline.jsonl');
  const localJsonl = join(options.outDir, 'swesmith-offline-local.jsonl');
  writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  const repoPath = relative(options.outDir, repoDir);
  writeFileSync(localJsonl, rows.map((row) => JSON.stringify({ ...row, repo_path: repoPath })).join('\n') + '\n');
  let image: string | null = null;
  if (options.baseImage) {
    image = dockerImageRef(imageName, options.namespace ?? 'debug-gym-offline');
    const context = mkdtempSync(join(tmpdir(), 'swesmith-image-'));
    try {
      cpSync(repoDir, join(context, 'testbed'), { recursive: true });
      // SWE-smith's images call the interpreter `python` and have pytest on PATH (a conda env); the offline base has python3 and /usr/bin/pytest.
      writeFileSync(join(context, 'Dockerfile'), `FROM ${options.baseImage}\nRUN ln -sf /usr/bin/python3 /usr/local/bin/python\nCOPY testbed /testbed\nWORKDIR /testbed\n`);
      execFileSync('docker', ['build', '-q', '-t', image, context], { stdio: 'pipe' });
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }
  if (!existsSync(jsonl)) throw new Error(`could not write ${jsonl}`);
  return { jsonl, localJsonl, repoDir, rows, image };
}
