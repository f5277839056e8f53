/**
 * The SWE-bench harness's log parsers (v4.0.3 `swebench/harness/log_parsers/python.py`), as pure
 * functions from a test log to `test id → status`. Quirks are kept on purpose: test ids must match
 * the dataset's FAIL_TO_PASS / PASS_TO_PASS character for character.
 */

export type TestStatus = 'PASSED' | 'FAILED' | 'SKIPPED' | 'ERROR' | 'XFAIL';
export type StatusMap = Record<string, string>;
export type LogParser = (log: string) => StatusMap;

const STATUSES: readonly TestStatus[] = ['FAILED', 'PASSED', 'SKIPPED', 'ERROR', 'XFAIL'];
const startsWithStatus = (line: string): boolean => STATUSES.some((status) => line.startsWith(status));
const endsWithStatus = (line: string): boolean => STATUSES.some((status) => line.endsWith(status));
/** Python's `str.split()` (no argument): runs of whitespace, no empty tokens. */
const tokens = (line: string): string[] => line.split(/\s+/).filter(Boolean);

/** `STATUS nodeid` lines (pytest `-rA` short summary); a FAILED line's ` - message` tail is cut off. */
export const parseLogPytest: LogParser = (log) => {
  const map: StatusMap = {};
  for (let line of log.split('\n')) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const parts = tokens(line);
    if (parts.length <= 1) continue;
    map[parts[1] as string] = parts[0] as string;
  }
  return map;
};

/**
 * `/(.*?)\[(.*)\]/.exec(id)` as a scan (the log is the code under test's; that pattern is cubic on a run
 * of `[`): the id up to its first `[`, and what lies between it and the last `]`. Ids are whitespace-free
 * tokens, so `.` never meets a line break here.
 */
function splitOption(id: string): [main: string, value: string] | null {
  const open = id.indexOf('[');
  const close = id.lastIndexOf(']');
  return open >= 0 && close > open ? [id.slice(0, open), id.slice(open + 1, close)] : null;
}

/** pytest, with a parametrized id whose option is an absolute path shortened to its basename (`main[/<basename>]`). */
export const parseLogPytestOptions: LogParser = (log) => {
  const map: StatusMap = {};
  for (let line of log.split('\n')) {
    if (!startsWithStatus(line)) continue;
    if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
    const parts = tokens(line);
    if (parts.length <= 1) continue;
    const id = parts[1] as string;
    const option = splitOption(id);
    let name = id;
    if (option) {
      const [main, value] = option;
      const shortened = value.startsWith('/') && !value.startsWith('//') && !value.includes('*') ? `/${value.split('/').at(-1)}` : value;
      name = `${main}[${shortened}]`;
    }
    map[name] = parts[0] as string;
  }
  return map;
};

const CONTROL = /[\u0001-\u001f]/g;

/** pytest after removing colour codes and control characters; also `nodeid STATUS` lines (older verbose pytest). */
export const parseLogPytestV2: LogParser = (log) => {
  const map: StatusMap = {};
  for (let line of log.split('\n')) {
    line = line.replace(/\[(\d+)m/g, '').replace(CONTROL, '');
    if (startsWithStatus(line)) {
      if (line.startsWith('FAILED')) line = line.replaceAll(' - ', ' ');
      const parts = tokens(line);
      if (parts.length >= 2) map[parts[1] as string] = parts[0] as string;
    } else if (endsWithStatus(line)) {
      const parts = tokens(line);
      if (parts.length >= 2) map[parts[0] as string] = parts.at(-1) as string;
    }
  }
  return map;
};

/** pytest, with `MouseButton.LEFT` / `MouseButton.RIGHT` in ids written as 1 / 3. */
export const parseLogMatplotlib: LogParser = (log) =>
  parseLogPytest(
    log
      .split('\n')
      .map((line) => line.replaceAll('MouseButton.LEFT', '1').replaceAll('MouseButton.RIGHT', '3'))
      .join('\n'),
  );

/** seaborn: `FAILED id`, `id PASSED ...` and `PASSED id` lines. */
export const parseLogSeaborn: LogParser = (log) => {
  const map: StatusMap = {};
  for (const line of log.split('\n')) {
    if (line.startsWith('FAILED')) {
      const id = tokens(line)[1];
      if (id !== undefined) map[id] = 'FAILED';
    } else if (line.includes(' PASSED ')) {
      const parts = tokens(line);
      if (parts[1] === 'PASSED') map[parts[0] as string] = 'PASSED';
    } else if (line.startsWith('PASSED')) {
      const id = tokens(line)[1];
      if (id !== undefined) map[id] = 'PASSED';
    }
  }
  return map;
};

const DJANGO_PASS_SUFFIXES = [' ... ok', ' ... OK', ' ...  OK'];
/** Tests whose `... ok` was split across lines by a message printed in between. */
const DJANGO_SPLIT_PASSES = [
  /^(.*?)\s\.\.\.\sTesting against Django installed in ([\s\S]*?) silenced\)\.\nok$/gm,
  /^(.*?)\s\.\.\.\sSystem check identified no issues \(0 silenced\)\nok$/gm,
];

const LINE_TERMINATORS = '\n\r\u2028\u2029';
const SERVER_ERROR = 'Internal Server Error: /';
const isSpace = (char: string | undefined): boolean => char !== undefined && /\s/.test(char);

/**
 * The harness's third split-pass pattern, `^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$` (multi-line,
 * global), as a scan: that expression runs its greedy `(.*)` to the end of the line from every
 * ` ... Internal Server Error: /` in it, quadratic on a line the code under test prints. Every match ends
 * with a line R (ending in `/`) and a line `ok`; `Internal Server Error: /` lies in R, and because `\s` also
 * matches a line break, the test name may stand on R, on the line before it or on the one before that.
 * The leftmost of those starts wins, and a match never starts before the end of the previous one.
 */
export function djangoServerErrorPasses(log: string): string[] {
  const lines: Array<{ start: number; text: string; next: string | undefined }> = [];
  for (let start = 0; ; ) {
    let end = start;
    while (end < log.length && !LINE_TERMINATORS.includes(log[end] as string)) end += 1;
    lines.push({ start, text: log.slice(start, end), next: log[end] });
    if (end >= log.length) break;
    start = end + 1;
  }
  const names: string[] = [];
  let searchFrom = 0;
  for (let r = 0; r + 1 < lines.length; r += 1) {
    const line = lines[r] as (typeof lines)[number];
    if (line.next !== '\n' || lines[r + 1]?.text !== 'ok' || !line.text.endsWith('/')) continue;
    const name = serverErrorMatch(lines, r, searchFrom);
    if (name === null) continue;
    names.push(name);
    searchFrom = (lines[r + 1] as (typeof lines)[number]).start + 2;
  }
  return names;
}

/** The test name of the match ending at line `r` (then `ok`), from the leftmost start at or after `from`. */
function serverErrorMatch(lines: ReadonlyArray<{ start: number; text: string }>, r: number, from: number): string | null {
  const R = (lines[r] as { text: string }).text;
  const before = lines[r - 1];
  const twoBefore = lines[r - 2];
  const opensWithError = R.startsWith(SERVER_ERROR) && R.length > SERVER_ERROR.length;
  // The name is the whole line two above; the line between is `...`; R opens with the error.
  if (twoBefore && before && twoBefore.start >= from && before.text === '...' && opensWithError) return twoBefore.text;
  if (before && before.start >= from) {
    // The name, a space and `...` end the line above; R opens with the error.
    if (opensWithError && before.text.endsWith('...') && isSpace(before.text[before.text.length - 4])) return before.text.slice(0, -4);
    // The name is the whole line above; R opens with `...`, a space and the error.
    if (R.startsWith('...') && isSpace(R[3]) && R.startsWith(SERVER_ERROR, 4) && R.length > 4 + SERVER_ERROR.length) return before.text;
  }
  if ((lines[r] as { start: number }).start < from) return null;
  // All on R: the first ` ... Internal Server Error: /` with something after it.
  for (let dots = R.indexOf('...', 1); dots >= 0; dots = R.indexOf('...', dots + 1)) {
    if (dots + 4 + SERVER_ERROR.length > R.length - 1) return null;
    if (isSpace(R[dots - 1]) && isSpace(R[dots + 3]) && R.startsWith(SERVER_ERROR, dots + 4)) return R.slice(0, dots - 1);
  }
  return null;
}

/**
 * The part of the log a split-pass pattern can match in: up to the end of the last `ok` line after its
 * closing text. The first pattern's `[\s\S]*?` runs from each candidate line to the next closing text:
 * past the last one, every candidate would scan to the end of the log and fail (quadratic in lines the
 * code under test prints); before it, each candidate's match ends at a closing text, so the search is linear.
 * Cutting there changes no match: `$` matches at the cut as it did before the line break.
 */
function searchedPart(log: string, pattern: RegExp): string {
  const closing = pattern === DJANGO_SPLIT_PASSES[0] ? ' silenced).\nok' : ' silenced)\nok';
  for (let at = log.lastIndexOf(closing); at >= 0; at = at === 0 ? -1 : log.lastIndexOf(closing, at - 1)) {
    const end = at + closing.length;
    if (end === log.length || '\n\r\u2028\u2029'.includes(log[end] as string)) return log.slice(0, end);
  }
  return '';
}

/** Django's unittest runner at verbosity 2: `test_x (module.Class) ... ok`. */
export const parseLogDjango: LogParser = (log) => {
  const map: StatusMap = {};
  let previous: string | null = null;
  for (const raw of log.split('\n')) {
    let line = raw.trim();
    if (line.includes('--version is equivalent to version')) map['--version is equivalent to version'] = 'PASSED';
    if (line.includes(' ... ')) previous = line.split(' ... ')[0] as string;
    for (const suffix of DJANGO_PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // The harness's fix for django__django-7188, whose first test line follows a migration line.
      if (line.trim().startsWith('Applying sites.0002_alter_domain_unique...test_no_migrations')) {
        line = (line.split('...').slice(1).join('...') ?? '').trim();
      }
      map[line.slice(0, line.lastIndexOf(suffix))] = 'PASSED';
      break;
    }
    if (line.includes(' ... skipped')) map[line.split(' ... skipped')[0] as string] = 'SKIPPED';
    if (line.endsWith(' ... FAIL')) map[line.split(' ... FAIL')[0] as string] = 'FAILED';
    if (line.startsWith('FAIL:')) {
      const id = tokens(line)[1];
      if (id !== undefined) map[id.trim()] = 'FAILED';
    }
    if (line.endsWith(' ... ERROR')) map[line.split(' ... ERROR')[0] as string] = 'ERROR';
    if (line.startsWith('ERROR:')) {
      const id = tokens(line)[1];
      if (id !== undefined) map[id.trim()] = 'ERROR';
    }
    if (line.trimStart().startsWith('ok') && previous !== null) map[previous] = 'PASSED';
  }
  for (const pattern of DJANGO_SPLIT_PASSES) {
    for (const match of searchedPart(log, pattern).matchAll(pattern)) map[match[1] as string] = 'PASSED';
  }
  for (const name of djangoServerErrorPasses(log)) map[name] = 'PASSED';
  return map;
};

/**
 * The harness's `(_*) (.*)\.py:(.*) (_*)` on one line, as a scan (that pattern is quadratic on a line of
 * spaces the code under test prints): it matches from the line's first space when a `.py:` lies between
 * that space and the line's last space, and names `<group 2>.py:<group 3>` — the greedy groups end at
 * the last such `.py:` and at the last space. A line holds at most one match.
 */
function sympyFailureHeader(line: string): string | null {
  const first = line.indexOf(' ');
  const last = line.lastIndexOf(' ');
  if (first < 0 || last - 4 < first + 1) return null;
  const py = line.lastIndexOf('.py:', last - 4);
  return py >= first + 1 ? `${line.slice(first + 1, py)}.py:${line.slice(py + 4, last)}` : null;
}

/** sympy's `bin/test`: failure section headers, then `test_x ok|F|E` lines. */
export const parseLogSympy: LogParser = (log) => {
  const map: StatusMap = {};
  for (const line of log.split(/[\n\r\u2028\u2029]/)) {
    const header = sympyFailureHeader(line);
    if (header !== null) map[header] = 'FAILED';
  }
  for (const raw of log.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('test_')) continue;
    const id = tokens(line)[0] as string;
    if (line.endsWith(' E')) map[id] = 'ERROR';
    if (line.endsWith(' F')) map[id] = 'FAILED';
    if (line.endsWith(' ok')) map[id] = 'PASSED';
  }
  return map;
};

/** The v4.0.3 parsers by name. */
export const LOG_PARSERS = {
  pytest: parseLogPytest,
  pytest_options: parseLogPytestOptions,
  pytest_v2: parseLogPytestV2,
  matplotlib: parseLogMatplotlib,
  seaborn: parseLogSeaborn,
  django: parseLogDjango,
  sympy: parseLogSympy,
} as const satisfies Record<string, LogParser>;

export type LogParserName = keyof typeof LOG_PARSERS;

/** v4.0.3 `MAP_REPO_TO_PARSER`. */
const REPO_PARSERS: Record<string, LogParserName> = {
  'astropy/astropy': 'pytest_v2',
  'django/django': 'django',
  'marshmallow-code/marshmallow': 'pytest',
  'matplotlib/matplotlib': 'matplotlib',
  'mwaskom/seaborn': 'seaborn',
  'pallets/flask': 'pytest',
  'psf/requests': 'pytest_options',
  'pvlib/pvlib-python': 'pytest',
  'pydata/xarray': 'pytest',
  'pydicom/pydicom': 'pytest_options',
  'pylint-dev/astroid': 'pytest',
  'pylint-dev/pylint': 'pytest_options',
  'pytest-dev/pytest': 'pytest',
  'pyvista/pyvista': 'pytest',
  'scikit-learn/scikit-learn': 'pytest_v2',
  'sphinx-doc/sphinx': 'pytest_v2',
  'sqlfluff/sqlfluff': 'pytest',
  'sympy/sympy': 'sympy',
};

/** The newer datasets' `log_parser` names (`parse_log_<repo>`) → the v4.0.3 parser the repo used. */
const NAMED_PARSERS: Record<string, LogParserName> = {
  parse_log_pytest: 'pytest',
  parse_log_pytest_options: 'pytest_options',
  parse_log_pytest_v2: 'pytest_v2',
  parse_log_astropy: 'pytest_v2',
  parse_log_scikit: 'pytest_v2',
  parse_log_sphinx: 'pytest_v2',
  parse_log_xarray: 'pytest',
  parse_log_flask: 'pytest',
  parse_log_requests: 'pytest_options',
  parse_log_pylint: 'pytest_options',
  parse_log_matplotlib: 'matplotlib',
  parse_log_seaborn: 'seaborn',
  parse_log_django: 'django',
  parse_log_sympy: 'sympy',
};

/** The parser of an instance: by repository (v4.0.3), else by its `log_parser` field, else pytest. */
export function parserNameFor(instance: { repo: string; log_parser?: string | undefined }): LogParserName {
  return REPO_PARSERS[instance.repo] ?? (instance.log_parser ? NAMED_PARSERS[instance.log_parser] : undefined) ?? 'pytest';
}
