import { parseUnifiedDiff } from '@debug-gym/plugin-kit';
import { END_TEST_OUTPUT, START_TEST_OUTPUT } from './grading.js';
import type { SwebenchInstance } from './instance.js';

/** Test-patch paths that are data, not tests (v4.0.3 `NON_TEST_EXTS`; the `csv` entry really has no dot). */
export const NON_TEST_EXTS = ['.json', '.png', 'csv', '.txt', '.md', '.jpg', '.jpeg', '.pkl', '.yml', '.yaml', '.toml'];

const TEST_PYTEST = 'pytest -rA';
const TEST_ASTROPY_CLASSIC = 'pytest -rA -vv -o console_output_style=classic --tb=no';
const TEST_DJANGO = './tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1';
const TEST_DJANGO_19 = './tests/runtests.py --verbosity 2';
const TEST_SEABORN = 'pytest --no-header -rA';
const TEST_SPHINX = 'tox --current-env -epy39 -v --';
const TEST_SYMPY = "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose";

/** v4.0.3 `test_cmd` of a repository version (unknown repositories: `pytest -rA`). */
export function baseTestCommand(repo: string, version: string): string {
  switch (repo) {
    case 'django/django':
      return version === '1.9' ? TEST_DJANGO_19 : TEST_DJANGO;
    case 'sympy/sympy':
      return TEST_SYMPY;
    case 'sphinx-doc/sphinx':
      return TEST_SPHINX;
    case 'mwaskom/seaborn':
      return TEST_SEABORN;
    case 'astropy/astropy':
      return Number.parseFloat(version) < 3 ? TEST_ASTROPY_CLASSIC : TEST_PYTEST;
    default:
      return TEST_PYTEST;
  }
}

/** Files of a diff: `b/<path>` of every `diff --git` line (greedy, as the harness's regex). */
function diffTargets(patch: string): string[] {
  return [...patch.matchAll(/diff --git a\/.* b\/(.*)/g)].map((match) => match[1] as string);
}

/** v4.0.3 `get_test_directives`: test files of the test patch (Django: dotted module names). */
export function testDirectives(instance: Pick<SwebenchInstance, 'repo' | 'test_patch'>): string[] {
  const directives = diffTargets(instance.test_patch).filter((path) => !NON_TEST_EXTS.some((ext) => path.endsWith(ext)));
  if (instance.repo !== 'django/django') return directives;
  return directives.map((path) => {
    let module = path.endsWith('.py') ? path.slice(0, -3) : path;
    if (module.startsWith('tests/')) module = module.slice('tests/'.length);
    return module.replaceAll('/', '.');
  });
}

/** Files the test patch modifies or deletes (`--- a/<path>`): restored to the base commit around each run. */
export function testPatchModifiedFiles(testPatch: string): string[] {
  return [...testPatch.matchAll(/^--- a\/(.*)$/gm)].map((match) => match[1] as string);
}

/** Files the test patch creates (`new file`, also when empty): removed after each run so they stay hidden. */
export function testPatchCreatedFiles(testPatch: string): string[] {
  return parseUnifiedDiff(testPatch)
    .filter((file) => file.oldPath === null && file.newPath !== null)
    .map((file) => file.newPath as string);
}

const HEREDOC = 'EOF_114329324912';

/** Lines the instance's eval script runs between applying the test patch and the tests. */
function preTestLines(script: string | undefined): string[] {
  if (!script) return [];
  const from = script.indexOf(`\n${HEREDOC}\n`);
  const to = script.indexOf(`: '${START_TEST_OUTPUT}'`);
  if (from < 0 || to < from) return [];
  return script
    .slice(from + HEREDOC.length + 2, to)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** Commands (not `export`s) the instance's eval script runs before the tests, e.g. a pinned pytest. */
export function preTestCommands(instance: Pick<SwebenchInstance, 'eval_script'>): string[] {
  return preTestLines(instance.eval_script).filter((line) => !line.startsWith('export '));
}

/** The command between the eval script's output markers, when the instance carries its script. */
export function scriptTestCommand(evalScript: string | undefined): string | null {
  if (!evalScript) return null;
  const start = evalScript.indexOf(`: '${START_TEST_OUTPUT}'\n`);
  const end = evalScript.indexOf(`\n: '${END_TEST_OUTPUT}'`);
  if (start < 0 || end < start) return null;
  return evalScript.slice(start + START_TEST_OUTPUT.length + 5, end).trim() || null;
}

/** The harness's test command line: test_cmd + directives (the instance's own script wins when it has one). */
export function testCommand(instance: SwebenchInstance): string {
  return scriptTestCommand(instance.eval_script) ?? [baseTestCommand(instance.repo, instance.version), ...testDirectives(instance)].join(' ');
}

/** Environment of the eval script (`export NAME=value` lines before the tests, e.g. Django's locale). */
export function evalEnvironment(instance: SwebenchInstance): Record<string, string> {
  if (instance.eval_script) {
    const env: Record<string, string> = {};
    const head = instance.eval_script.split(`: '${START_TEST_OUTPUT}'`)[0] as string;
    for (const match of head.matchAll(/^export ([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm)) env[match[1] as string] = unquote(match[2] as string);
    return env;
  }
  if (instance.repo !== 'django/django') return {};
  return { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8', PYTHONIOENCODING: 'utf8', LANGUAGE: 'en_US:en' };
}

function unquote(value: string): string {
  const trimmed = value.trim();
  if ((trimmed.startsWith("'") && trimmed.endsWith("'")) || (trimmed.startsWith('"') && trimmed.endsWith('"'))) return trimmed.slice(1, -1);
  return trimmed;
}

/**
 * debug-gym's entrypoint of an instance: the test command with `--tb=no` → `--tb=short`, and the
 * leading `NAME=value` assignments (sympy's PYTHONWARNINGS) moved into the environment.
 */
export function entrypointOf(instance: SwebenchInstance): { entrypoint: string; env: Record<string, string> } {
  let command = testCommand(instance).replace('--tb=no', '--tb=short');
  const env: Record<string, string> = {};
  for (let match = /^([A-Za-z_][A-Za-z0-9_]*)=('[^']*'|"[^"]*"|\S+)\s+/.exec(command); match; match = /^([A-Za-z_][A-Za-z0-9_]*)=('[^']*'|"[^"]*"|\S+)\s+/.exec(command)) {
    env[match[1] as string] = unquote(match[2] as string);
    command = command.slice(match[0].length);
  }
  return { entrypoint: command, env };
}


/**
 * The harness's eval script (v4.0.3 structure, without the per-repo install step): restore the test
 * files, apply the test patch, run the tests between the output markers, restore the test files.
 */
export function buildEvalScript(instance: SwebenchInstance, options: { activate?: boolean } = {}): string {
  const files = testPatchModifiedFiles(instance.test_patch);
  const reset = files.length > 0 ? `git checkout ${instance.base_commit} ${files.join(' ')}` : ':';
  const late = preTestLines(instance.eval_script);
  const exports = Object.entries(evalEnvironment(instance))
    .map(([name, value]) => `export ${name}=${value}`)
    .filter((line) => !late.includes(line));
  const activate = options.activate === false ? [] : ['source /opt/miniconda3/bin/activate', 'conda activate testbed'];
  return [
    '#!/bin/bash',
    'set -uxo pipefail',
    ...activate,
    'cd /testbed',
    ...exports,
    'git config --global --add safe.directory /testbed',
    'cd /testbed',
    'git status',
    'git show',
    `git -c core.fileMode=false diff ${instance.base_commit}`,
    reset,
    `git apply -v - <<'${HEREDOC}'`,
    instance.test_patch,
    HEREDOC,
    ...late,
    `: '${START_TEST_OUTPUT}'`,
    testCommand(instance),
    `: '${END_TEST_OUTPUT}'`,
    reset,
    '',
  ].join('\n');
}
