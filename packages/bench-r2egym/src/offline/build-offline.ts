import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseLogPytest, type R2eStatusMap } from '../harness.js';
import { isTestFile, parseGitDiff } from '../parsed-commit.js';

/**
 * One fixing commit over a real project, as R2E-Gym mines them: the commit before it has the bug
 * (`find` replaced by `replace`), the commit fixes it; `tests` are the repository's test files the
 * hidden tests are taken from (R2E-Gym extracts the tests of the commit into `r2e_tests/test_N.py`).
 */
export interface OfflineCommit {
  key: string;
  file: string;
  /** The fixed line(s), as the source has them. */
  find: string;
  /** The same line(s) before the fix. */
  replace: string;
  /** The function or method the fix edits (`Class.method` for a method), for `modified_entity_summaries`. */
  entity: string;
  tests: string[];
  message: string;
  /** An R2E-Gym style issue (R2E-Gym writes its problem statements between [ISSUE] tags). */
  issue: string;
}

/**
 * Hidden tests beside the repository's, exercising XFAIL and XPASS on a real run (a strict xfail
 * that fails as expected, a non-strict one that passes): R2E-Gym's parser leaves both out of the
 * expected map, the original debug-gym's grader (fix #363) must then ignore them.
 */
export const EXPECTED_FAILURE_TESTS = `import pytest

from xmltodict import parse, unparse


@pytest.mark.xfail(reason="malformed XML raises an expat error", strict=True)
def test_malformed_document_is_rejected_quietly():
    parse("<a><b></a>")


@pytest.mark.xfail(reason="round trips of attributes may reorder them", strict=False)
def test_attribute_round_trip():
    document = {"a": {"@x": "1", "b": "2"}}
    assert parse(unparse(document)) == document
`;

/** Three fixing commits over xmltodict 0.13.0 (Debian's `python-xmltodict` source package). */
export const OFFLINE_COMMITS: readonly OfflineCommit[] = [
  {
    key: 'namespace-split',
    file: 'xmltodict.py',
    find: '        namespace, name = full_name[:i], full_name[i+1:]\n',
    replace: '        namespace, name = full_name[:i], full_name[i:]\n',
    entity: '_DictSAXHandler._build_name',
    tests: ['tests/test_xmltodict.py'],
    message: 'Fix the local name of namespaced elements (drop the separator)',
    issue: 'Parsing with process_namespaces=True keeps the namespace separator in element names: the local name of `{http://a.com/}x` comes out as `:x`, so `parse(xml, process_namespaces=True)` gives keys like `http://a.com/::x` and collapsing namespaces with a `namespaces` map does not work.',
  },
  {
    key: 'boolean-text',
    file: 'xmltodict.py',
    find: '            if v:\n                v = _unicode(\'true\')\n',
    replace: '            if not v:\n                v = _unicode(\'true\')\n',
    entity: '_emit',
    tests: ['tests/test_dicttoxml.py'],
    message: 'Write booleans as true/false, not the other way round',
    issue: '`unparse(dict(x=True))` writes `<x>false</x>` and `unparse(dict(x=False))` writes `<x>true</x>`: booleans are inverted when a dictionary is turned into XML.',
  },
  {
    key: 'attrs-pairs',
    file: 'xmltodict.py',
    find: '        return self.dict_constructor(zip(attrs[0::2], attrs[1::2]))\n',
    replace: '        return self.dict_constructor(zip(attrs[1::2], attrs[0::2]))\n',
    entity: '_DictSAXHandler._attrs_to_dict',
    tests: ['tests/test_xmltodict.py'],
    message: 'Keep attribute names and values in place with ordered attributes',
    issue: 'With the expat parser reporting attributes as a flat list (ordered_attributes), attribute names and values are swapped: `<a href="xyz"/>` parses to `{"a": {"@xyz": "href"}}`.',
  },
];

export interface OfflineDataset {
  /** Image instances in R2E-Gym's exact schema (`docker_image` names an image built here with `baseImage`). */
  jsonl: string;
  /** The same instances over local folders (`repo_path`, relative to this file), for any terminal. */
  localJsonl: string;
  rows: Record<string, unknown>[];
  /** The images built (`baseImage` given). */
  images: string[];
}

const REPO_NAME = 'xmltodict';
const TESTS_CMD = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' .venv/bin/python -W ignore -m pytest -rA r2e_tests";

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
  execFileSync('git', ['-c', 'user.name=r2e', '-c', 'user.email=r2e@localhost', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=master', ...args], { cwd, encoding: 'utf8' });

/** R2E-Gym's `create_tests`: `r2e_tests/__init__.py` and each test file. */
function createTests(repo: string, files: Array<{ name: string; code: string }>): void {
  mkdirSync(join(repo, 'r2e_tests'), { recursive: true });
  writeFileSync(join(repo, 'r2e_tests', '__init__.py'), '');
  for (const file of files) writeFileSync(join(repo, 'r2e_tests', file.name), file.code);
}

/** `bash run_tests.sh` in a copy of the repository with a `.venv` pointing at `python` (R2E-Gym's `run_test`). */
async function runTests(repo: string, python: string, timeoutMs: number): Promise<{ code: number; stdout: string; stderr: string }> {
  const venv = spawnSync(python, ['-m', 'venv', '--system-site-packages', '--without-pip', join(repo, '.venv')], { encoding: 'utf8' });
  if (venv.status !== 0) {
    // No venv module: the interpreter itself stands in for .venv/bin/python.
    mkdirSync(join(repo, '.venv', 'bin'), { recursive: true });
    execFileSync('ln', ['-sf', execFileSync(python, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim(), join(repo, '.venv', 'bin', 'python')]);
  }
  return runProcess('bash', ['run_tests.sh'], { cwd: repo, timeoutMs, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
}

/** R2E-Gym's `ExecutionResult.is_good_exec`: same tests before and after, none worse, some better. */
export function isGoodExec(old: R2eStatusMap, fixed: R2eStatusMap): { good: boolean; reason: string; improved: string[] } {
  if (Object.keys(old).length !== Object.keys(fixed).length || Object.keys(old).length === 0) return { good: false, reason: 'FAIL_AT_TEST_RUN', improved: [] };
  if (JSON.stringify(Object.keys(old).sort()) !== JSON.stringify(Object.keys(fixed).sort())) return { good: false, reason: 'FAIL_AT_TEST_RUN', improved: [] };
  const improved: string[] = [];
  for (const key of Object.keys(old)) {
    if (old[key] === 'PASSED') {
      if (fixed[key] !== 'PASSED') return { good: false, reason: 'NEW_COMMIT_WORSE', improved: [] };
    } else if (fixed[key] === 'PASSED') improved.push(key.split('[')[0] as string);
  }
  return improved.length > 0 ? { good: true, reason: 'NEW_COMMIT_BETTER', improved } : { good: false, reason: 'NEW_COMMIT_NOT_BETTER', improved };
}

/** The function or method around a line (Python's ast), for `modified_entity_summaries`. */
function entitySummary(python: string, path: string, relPath: string, name: string): Record<string, unknown> {
  const script = `import ast, json, sys
tree = ast.parse(open(sys.argv[1]).read())
want = sys.argv[2].split('.')
for node in ast.walk(tree):
    if isinstance(node, ast.ClassDef) and len(want) == 2 and node.name == want[0]:
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == want[1]:
                print(json.dumps({"type": "method", "ast_type_str": "FunctionDef", "start_lineno": item.lineno, "end_lineno": item.end_lineno})); sys.exit()
    if isinstance(node, ast.FunctionDef) and len(want) == 1 and node.name == want[0]:
        print(json.dumps({"type": "function", "ast_type_str": "FunctionDef", "start_lineno": node.lineno, "end_lineno": node.end_lineno})); sys.exit()
sys.exit(1)`;
  const found = JSON.parse(execFileSync(python, ['-c', script, path, name], { encoding: 'utf8' })) as Record<string, unknown>;
  return { file_name: relPath, type: found.type, name, ast_type_str: found.ast_type_str, start_lineno: found.start_lineno, end_lineno: found.end_lineno };
}

/**
 * R2E-Gym instances built offline over a real project, one per commit of `commits`: a repository
 * whose HEAD is the commit before the fix (detached, as R2E-Gym's images `git checkout` it) and
 * whose `master` is the fix; the hidden tests (`r2e_tests/test_1.py` … from the repository's tests,
 * plus `EXPECTED_FAILURE_TESTS`) run with R2E-Gym's test command before and after the fix, and the
 * row written as R2E-Gym's `validate_docker_and_hf.py` writes it (`expected_output_json` = R2E-Gym's
 * parse of the run after the fix; the commit must pass `is_good_exec`). With `baseImage`, each
 * instance's image is built as R2E-Gym's Dockerfiles lay it out (the repository and its `.venv` in
 * /testbed, `run_tests.sh` beside it, the hidden tests in /r2e_tests) and tagged as `docker_image`.
 */
export async function buildOfflineInstances(options: { sourceDir: string; outDir: string; python?: string; baseImage?: string; namespace?: string; commits?: readonly OfflineCommit[]; timeoutMs?: number }): Promise<OfflineDataset> {
  const python = options.python ?? 'python3';
  const namespace = options.namespace ?? 'debug-gym-offline';
  const rows: Record<string, unknown>[] = [];
  const localRows: Record<string, unknown>[] = [];
  const images: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'r2egym-offline-'));
  mkdirSync(options.outDir, { recursive: true });
  try {
    for (const [index, commit] of (options.commits ?? OFFLINE_COMMITS).entries()) {
      const repoDir = join(options.outDir, 'repos', `${REPO_NAME}-${commit.key}`);
      rmSync(repoDir, { recursive: true, force: true });
      mkdirSync(repoDir, { recursive: true });
      cpSync(options.sourceDir, repoDir, { recursive: true, filter: (source) => !/\/(debian|\.pc|\.git|__pycache__|\.pytest_cache|\.venv)$/.test(source) });
      const path = join(repoDir, commit.file);
      const fixed = readFileSync(path, 'utf8');
      if (fixed.split(commit.find).length !== 2) throw new Error(`${commit.key}: the fixed text must occur exactly once in ${commit.file}`);
      writeFileSync(path, fixed.replace(commit.find, commit.replace));
      git(repoDir, 'init', '-q');
      git(repoDir, 'add', '-A');
      git(repoDir, 'commit', '-qm', 'Prepare the release', '--date', '2024-01-01T00:00:00');
      const oldCommit = git(repoDir, 'rev-parse', 'HEAD').trim();
      writeFileSync(path, fixed);
      git(repoDir, 'commit', '-qam', commit.message, '--date', `2024-01-0${index + 2}T00:00:00`);
      const newCommit = git(repoDir, 'rev-parse', 'HEAD').trim();
      // The diff text without its last newline: upstream's parser reads a trailing empty string as a context line.
      const diff = git(repoDir, 'diff', oldCommit, newCommit).replace(/\n$/, '');
      const parsed = parseGitDiff({
        oldCommit,
        newCommit,
        diff,
        message: commit.message,
        date: `2024-01-0${index + 2}T00:00:00`,
        contents: (file) => ({ old: git(repoDir, 'show', `${oldCommit}:${file}`), new: git(repoDir, 'show', `${newCommit}:${file}`) }),
      });
      git(repoDir, 'checkout', '-q', '--detach', oldCommit);
      const testFiles = [...commit.tests.map((test, at) => ({ name: `test_${at + 1}.py`, code: readFileSync(join(repoDir, test), 'utf8') })), { name: `test_${commit.tests.length + 1}.py`, code: EXPECTED_FAILURE_TESTS }];
      const run = (label: string, content: string): Promise<{ code: number; stdout: string; stderr: string }> => {
        const copy = join(scratch, `${commit.key}-${label}`);
        cpSync(repoDir, copy, { recursive: true, filter: (source) => !source.endsWith('/.git') });
        writeFileSync(join(copy, commit.file), content);
        writeFileSync(join(copy, 'run_tests.sh'), TESTS_CMD);
        createTests(copy, testFiles);
        return runTests(copy, python, options.timeoutMs ?? 120_000);
      };
      const before = await run('old', fixed.replace(commit.find, commit.replace));
      const after = await run('new', fixed);
      const oldParse = parseLogPytest(before.stdout);
      const newParse = parseLogPytest(after.stdout);
      const verdict = isGoodExec(oldParse, newParse);
      if (!verdict.good) throw new Error(`${commit.key}: not a valid R2E-Gym commit (${verdict.reason}); test output after the fix:\n${after.stdout.slice(-2000)}`);
      const execution = {
        repo_name: REPO_NAME,
        new_commit_hash: newCommit,
        test_file_codes: testFiles.map((file) => file.code),
        test_file_names: testFiles.map((file) => file.name),
        setup_res_code: 0,
        setup_res_stdout: '',
        setup_res_stderr: '',
        new_commit_res_code: after.code,
        new_commit_res_stdout: after.stdout,
        new_commit_res_stderr: after.stderr,
        old_commit_res_code: before.code,
        old_commit_res_stdout: before.stdout,
        old_commit_res_stderr: before.stderr,
      };
      const nonTest = parsed.file_diffs.filter((file) => !isTestFile(file.header.file.path));
      const edited = nonTest.reduce((sum, file) => sum + file.hunks.reduce((count, hunk) => count + hunk.line_group.all_lines.filter((line) => line.type === 'added' || line.type === 'deleted').length, 0), 0);
      const image = `${namespace}/${REPO_NAME}_final:${newCommit}`;
      const row = {
        repo_name: REPO_NAME,
        docker_image: image,
        commit_hash: newCommit,
        parsed_commit_content: JSON.stringify(parsed, null, 4),
        execution_result_content: JSON.stringify(execution, null, 4),
        modified_files: parsed.file_diffs.map((file) => file.header.file.path),
        modified_entity_summaries: [entitySummary(python, path, commit.file, commit.entity)],
        relevant_files: [commit.file, ...commit.tests],
        num_non_test_files: nonTest.length,
        num_non_test_func_methods: 1,
        num_non_test_lines: edited,
        prompt: `[ISSUE]\n${commit.issue}\n[/ISSUE]`,
        problem_statement: `[ISSUE]\n${commit.issue}\n[/ISSUE]`,
        expected_output_json: JSON.stringify(newParse, null, 4),
      };
      rows.push(row);
      localRows.push({ ...row, repo_path: relative(options.outDir, repoDir) });
      if (options.baseImage) {
        const context = mkdtempSync(join(tmpdir(), 'r2egym-image-'));
        try {
          cpSync(repoDir, join(context, 'testbed'), { recursive: true });
          writeFileSync(join(context, 'testbed', 'run_tests.sh'), TESTS_CMD);
          createTests(join(context, 'r2e_tests-parent'), testFiles);
          // R2E-Gym's Dockerfiles: the repository in /testbed with a uv venv, run_tests.sh beside it, the hidden tests in /r2e_tests.
          writeFileSync(
            join(context, 'Dockerfile'),
            `FROM ${options.baseImage}\nCOPY testbed /testbed\nWORKDIR /testbed\nRUN python3 -m venv --system-site-packages --without-pip .venv\nENV VIRTUAL_ENV=/testbed/.venv\nENV PATH="$VIRTUAL_ENV/bin:$PATH"\nCOPY r2e_tests-parent/r2e_tests /r2e_tests\n`,
          );
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
  const jsonl = join(options.outDir, 'r2egym-offline.jsonl');
  const localJsonl = join(options.outDir, 'r2egym-offline-local.jsonl');
  writeFileSync(jsonl, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  writeFileSync(localJsonl, localRows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  return { jsonl, localJsonl, rows, images };
}
