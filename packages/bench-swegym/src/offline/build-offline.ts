import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseLogPytest, testDirectives } from '@debug-gym/bench-swebench';
import { swegymImageName, swegymTestCmd } from '../specs.js';

/**
 * One issue over a real project, as SWE-Gym's instances are built (SWE-bench's collection): the
 * repository at the base commit has the bug; `patch` (the gold fix) restores `find`; the test patch
 * adds `test` to `testFile` (an existing test file, or a new one).
 */
export interface OfflineIssue {
  number: number;
  file: string;
  /** The fixed text, as the source has it. */
  find: string;
  /** The same text at the base commit (with the bug). */
  replace: string;
  testFile: string;
  /** Test code appended to `testFile` (created when missing) by the test patch. */
  test: string;
  problem: string;
}

/** Two issues over xmltodict 0.13.0 (Debian's `python-xmltodict` source package). */
export const OFFLINE_ISSUES: readonly OfflineIssue[] = [
  {
    number: 341,
    file: 'xmltodict.py',
    find: '    if "=" in value:\n',
    replace: '    if "==" in value:\n',
    testFile: 'tests/test_dicttoxml.py',
    test: `

class EqualsInNamesTestCase(unittest.TestCase):
    def test_element_name_with_equals_is_rejected(self):
        with self.assertRaises(ValueError):
            unparse({"a=b": "1"})

    def test_attribute_name_with_equals_is_rejected(self):
        with self.assertRaises(ValueError):
            unparse({"a": {"@x=y": "1"}})
`,
    problem: 'unparse() accepts element and attribute names containing "=" (e.g. `unparse({"a=b": "1"})` writes `<a=b>1</a=b>`), which breaks out of the tag: such names must be rejected with a ValueError like the other invalid names.',
  },
  {
    number: 342,
    file: 'xmltodict.py',
    find: '        ns_res = namespaces.get(ns.strip(attr_prefix))\n',
    replace: '        ns_res = namespaces.get(ns)\n',
    testFile: 'tests/test_unparse_namespaces.py',
    test: `import unittest

from xmltodict import unparse


class NamespacedAttributesTestCase(unittest.TestCase):
    def test_namespaced_attribute_is_expanded(self):
        xml = unparse({"a": {"@ns:x": "1"}}, namespaces={"ns": "urn"}, full_document=False)
        self.assertEqual(xml, '<a urn:x="1"></a>')
`,
    problem: 'unparse() with a `namespaces` map expands namespaced element names but not namespaced attribute names: `{"a": {"@ns:x": "1"}}` keeps `ns:x` instead of the full namespace.',
  },
];

export interface OfflineDataset {
  /** Image instances in SWE-Gym's (SWE-bench's) exact schema; their images are named as SWE-Gym's (`<namespace>/sweb.eval.x86_64.<id with _s_>`). */
  jsonl: string;
  /** The same instances over local folders (`repo_path`, relative to this file), for any terminal. */
  localJsonl: string;
  rows: Record<string, unknown>[];
  images: string[];
}

const REPO = 'martinblech/xmltodict';
const VERSION = '0.13';
/** A process run without blocking the event loop (a test worker must keep answering while pytest runs). */
function runProcess(command: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolvePromise({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=swe-gym', '-c', 'user.email=swe-gym@localhost', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });

async function runTests(repo: string, python: string, directives: readonly string[], timeoutMs: number): Promise<Record<string, string>> {
  // SWE-Gym's test_cmd for a repository outside its table is TEST_PYTEST (`pytest -rA`), run as `python -m pytest`.
  const args = swegymTestCmd(REPO, VERSION).split(/\s+/).filter(Boolean).slice(1);
  const run = await runProcess(python, ['-m', 'pytest', ...args, '-p', 'no:cacheprovider', ...directives], { cwd: repo, timeoutMs, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  return parseLogPytest(run.stdout);
}

/**
 * SWE-Gym instances built offline over a real project, each as SWE-bench's collection validates one:
 * the test patch applied at the base commit and with the gold patch, the tests run (`pytest -rA` +
 * the test patch's files), FAIL_TO_PASS = failing before and passing after, PASS_TO_PASS = passing
 * both times. With `baseImage`, each image is built with the repository at /testbed, as SWE-Gym's are.
 */
export async function buildOfflineInstances(options: { sourceDir: string; outDir: string; python?: string; baseImage?: string; namespace?: string; issues?: readonly OfflineIssue[]; timeoutMs?: number }): Promise<OfflineDataset> {
  const python = options.python ?? 'python3';
  const rows: Record<string, unknown>[] = [];
  const localRows: Record<string, unknown>[] = [];
  const images: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'swegym-offline-'));
  mkdirSync(options.outDir, { recursive: true });
  try {
    for (const issue of options.issues ?? OFFLINE_ISSUES) {
      const id = `${REPO.replace('/', '__')}-${issue.number}`;
      const repoDir = join(options.outDir, 'repos', id);
      rmSync(repoDir, { recursive: true, force: true });
      mkdirSync(repoDir, { recursive: true });
      cpSync(options.sourceDir, repoDir, { recursive: true, filter: (source) => !/\/(debian|\.pc|\.git|__pycache__|\.pytest_cache)$/.test(source) });
      const path = join(repoDir, issue.file);
      const fixed = readFileSync(path, 'utf8');
      if (fixed.split(issue.find).length !== 2) throw new Error(`${id}: the fixed text must occur exactly once in ${issue.file}`);
      const buggy = fixed.replace(issue.find, issue.replace);
      writeFileSync(path, buggy);
      git(repoDir, 'init', '-q');
      git(repoDir, 'add', '-A');
      git(repoDir, 'commit', '-qm', 'Initial commit', '--date', '2024-01-01T00:00:00');
      const baseCommit = git(repoDir, 'rev-parse', 'HEAD').trim();
      // The gold patch and the test patch, as git writes them.
      writeFileSync(path, fixed);
      const patch = git(repoDir, 'diff');
      writeFileSync(path, buggy);
      const testPath = join(repoDir, issue.testFile);
      const existed = existsSync(testPath);
      const before = existed ? readFileSync(testPath, 'utf8') : '';
      mkdirSync(dirname(testPath), { recursive: true });
      writeFileSync(testPath, before + issue.test);
      git(repoDir, 'add', '-N', issue.testFile);
      const testPatch = git(repoDir, 'diff', '--', issue.testFile);
      if (existed) writeFileSync(testPath, before);
      else rmSync(testPath);
      git(repoDir, 'reset', '-q');
      if (git(repoDir, 'status', '--porcelain').trim() !== '') throw new Error(`${id}: the repository is not clean after writing the patches`);
      const directives = testDirectives({ repo: REPO, test_patch: testPatch });
      const runWith = (label: string, source: string): Promise<Record<string, string>> => {
        const copy = join(scratch, `${id}-${label}`);
        cpSync(repoDir, copy, { recursive: true });
        writeFileSync(join(copy, issue.file), source);
        execFileSync('git', ['apply', '-'], { cwd: copy, input: testPatch });
        return runTests(copy, python, directives, options.timeoutMs ?? 120_000);
      };
      const pre = await runWith('pre', buggy);
      const post = await runWith('post', fixed);
      const passed = (map: Record<string, string>, test: string): boolean => map[test] === 'PASSED' || map[test] === 'XFAIL';
      const failToPass = Object.keys(post).filter((test) => passed(post, test) && !passed(pre, test));
      const passToPass = Object.keys(post).filter((test) => passed(post, test) && passed(pre, test));
      if (failToPass.length === 0) throw new Error(`${id}: no test of the test patch fails before the gold patch and passes after it`);
      const row = {
        repo: REPO,
        instance_id: id,
        base_commit: baseCommit,
        patch,
        test_patch: testPatch,
        problem_statement: issue.problem,
        hints_text: '',
        created_at: '2024-01-01T00:00:00Z',
        version: VERSION,
        FAIL_TO_PASS: failToPass,
        PASS_TO_PASS: passToPass,
        environment_setup_commit: baseCommit,
      };
      rows.push(row);
      localRows.push({ ...row, repo_path: relative(options.outDir, repoDir) });
      if (options.baseImage) {
        const image = swegymImageName(id, { namespace: options.namespace ?? 'debug-gym-offline' });
        const context = mkdtempSync(join(tmpdir(), 'swegym-image-'));
        try {
          cpSync(repoDir, join(context, 'testbed'), { recursive: true });
          // SWE-Gym's images (SWE-bench's harness): the repository at the base commit in /testbed, `python` and `pytest` on PATH.
          writeFileSync(join(context, 'Dockerfile'), `FROM ${options.baseImage}\nRUN ln -sf /usr/bin/python3 /usr/local/bin/python\nCOPY testbed /testbed\nWORKDIR /testbed\n`);
          const build = await runProcess('docker', ['build', '-q', '-t', image, context]);
          if (build.code !== 0) throw new Error(`docker build of ${image} failed:\n${build.stderr.slice(-2000)}`);
          images.push(image);
        } finally {
          rmSync(context, { recursive: true, force: true });
        }
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const jsonl = join(options.outDir, 'swegym-offline.jsonl');
  const localJsonl = join(options.outDir, 'swegym-offline-local.jsonl');
  writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  writeFileSync(localJsonl, localRows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  return { jsonl, localJsonl, rows, images };
}
