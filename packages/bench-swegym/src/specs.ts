import { testDirectives } from '@debug-gym/bench-swebench';

/**
 * SWE-Gym's test commands (SWE-Gym/SWE-Bench-Fork, swebench/harness/constants.py): `test_cmd` of each
 * repository SWE-Gym adds, by version where it depends on it. Text as upstream writes it (dask's
 * double space, MONAI's trailing space). Every one of these repositories is graded with SWE-bench's
 * `parse_log_pytest` (the fork's MAP_REPO_TO_PARSER).
 */
const MYPY_NEW = new Set(['1.7', '1.8', '1.9', '1.10', '1.11']);
export const SWEGYM_TEST_CMDS: Readonly<Record<string, string | ((version: string) => string)>> = {
  'getmoto/moto': 'pytest -n0 -rA',
  'conan-io/conan': 'pytest -n0 -rA',
  'dask/dask': 'pytest -n0 -rA  --color=no',
  'project-monai/monai': 'pytest -rA ',
  'iterative/dvc': 'pytest -rA',
  'bokeh/bokeh': 'pytest -rA -n0',
  'modin-project/modin': 'pytest -n0 -rA',
  'spyder-ide/spyder': 'pytest -n0 -rA',
  'hypothesisworks/hypothesis': 'pytest -n0 -rA --tb=no --no-header',
  'pydantic/pydantic': 'pytest -rA --tb=short -vv -o console_output_style=classic --no-header',
  'pandas-dev/pandas': 'pytest -rA --tb=long',
  'facebookresearch/hydra': 'pytest -rA --tb=long',
  'python/mypy': (version) => (MYPY_NEW.has(version) ? 'pytest -rA -k' : 'pytest -n0 -rA -k'),
};

/** The fork's TEST_PYTEST, for a repository its table does not list (upstream: a KeyError). */
export const TEST_PYTEST = 'pytest -rA';

/** `test_cmd` of a repository version (the fork lowercases repository names). */
export function swegymTestCmd(repo: string, version: string): string {
  const spec = SWEGYM_TEST_CMDS[repo.toLowerCase()];
  if (spec === undefined) return TEST_PYTEST;
  return typeof spec === 'function' ? spec(version) : spec;
}

/**
 * The fork's `make_test_command`: mypy runs the test patch's `[case …]` names as one `-k` expression;
 * every other repository runs `test_cmd` + the test patch's files (SWE-bench's `get_test_directives`).
 */
export function swegymTestCommand(instance: { repo: string; version: string; test_patch: string }): string {
  if (instance.repo === 'python/mypy') {
    const keys = [...instance.test_patch.matchAll(/\[case ([^\]]+)\]/g)].map((match) => match[1] as string);
    return `${swegymTestCmd(instance.repo, instance.version)} "${keys.join(' or ')}"`;
  }
  return [swegymTestCmd(instance.repo, instance.version), ...testDirectives(instance)].join(' ');
}

/**
 * SWE-Gym's prebuilt images (`xingyaoww/sweb.eval.x86_64.<instance_id>`, `__` spelt `_s_`, lowercased,
 * as OpenHands' SWE-Gym evaluation names them).
 */
export function swegymImageName(instanceId: string, options: { namespace?: string; arch?: string } = {}): string {
  return `${options.namespace ?? 'xingyaoww'}/sweb.eval.${options.arch ?? 'x86_64'}.${instanceId.replaceAll('__', '_s_')}:latest`.toLowerCase();
}
