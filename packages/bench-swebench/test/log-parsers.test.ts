import { describe, expect, it, test } from 'vitest';
import { seededIntegers } from '@debug-gym/test-utils/linearity';
import { djangoServerErrorPasses } from '../src/log-parsers.js';
import {
  LOG_PARSERS,
  parseLogDjango,
  parseLogMatplotlib,
  parseLogPytest,
  parseLogPytestOptions,
  parseLogPytestV2,
  parseLogSeaborn,
  parseLogSympy,
  parserNameFor,
  type LogParser,
  type StatusMap,
} from '../src/index.js';

/** `pytest -rA` as the harness runs it (flask / xarray / pytest style). */
const PYTEST_LOG = `============================= test session starts ==============================
platform linux -- Python 3.9.19, pytest-7.4.0, pluggy-1.3.0
rootdir: /testbed
configfile: pyproject.toml
collected 7 items

tests/test_basic.py ..F.sEx                                              [100%]

=================================== FAILURES ===================================
____________________________ test_json_dump_to_file ____________________________

    def test_json_dump_to_file():
>       assert 'a' == 'b'
E       AssertionError: assert 'a' == 'b'

tests/test_basic.py:22: AssertionError
==================================== PASSES ====================================
=========================== short test summary info ============================
PASSED tests/test_basic.py::test_method_route[get]
PASSED tests/test_basic.py::test_request_dispatching
PASSED tests/test_basic.py::TestX::test_y[a b]
SKIPPED [1] tests/test_basic.py:42: requires X
FAILED tests/test_basic.py::test_json_dump_to_file - AssertionError: assert 'a' == 'b'
ERROR tests/test_basic.py::test_fixture_error - RuntimeError: boom
XFAIL tests/test_basic.py::test_xfail - reason: not yet
FAILED
  PASSED tests/test_basic.py::indented_is_ignored
============== 1 failed, 3 passed, 1 skipped, 1 xfailed, 1 error in 0.12s ==============
`;

const PYTEST_MAP: StatusMap = {
  'tests/test_basic.py::test_method_route[get]': 'PASSED',
  'tests/test_basic.py::test_request_dispatching': 'PASSED',
  // The harness keeps only token 1: an id with a space is cut short.
  'tests/test_basic.py::TestX::test_y[a': 'PASSED',
  '[1]': 'SKIPPED',
  'tests/test_basic.py::test_json_dump_to_file': 'FAILED',
  'tests/test_basic.py::test_fixture_error': 'ERROR',
  'tests/test_basic.py::test_xfail': 'XFAIL',
};

/** psf/requests and pylint: parametrized ids with absolute paths. */
const OPTIONS_LOG = `PASSED test_requests.py::TestRequests::test_invalid_url[MissingSchema-hiwpefhipowhefopw]
PASSED test_requests.py::TestRequests::test_certs[/usr/share/ca-certificates/mozilla/cert.pem]
PASSED tests/test_functional.py::test_functional[//network/share]
PASSED tests/test_self.py::test_glob[/tmp/*/x.py]
FAILED test_requests.py::TestRequests::test_proxy[/etc/proxy/conf] - AssertionError
PASSED tests/test_plain.py::test_plain
`;

/** astropy / sklearn / sphinx: colours, control characters, and the classic verbose `nodeid STATUS` style. */
const V2_LOG = [
  '\u001b[32mPASSED\u001b[0m sklearn/tests/test_base.py::test_clone',
  'astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_rename_keyword PASSED',
  'astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_card_constructor FAILED',
  'astropy/units/tests/test_quantity.py::test_skip SKIPPED',
  '\u001b[31mFAILED\u001b[0m sklearn/tests/test_base.py::test_get_params - ValueError: x',
  'ERROR\tsphinx/tests/test_build.py::test_build_all',
  'FAILED',
].join('\n');

const MATPLOTLIB_LOG = `PASSED lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[MouseButton.LEFT-True]
FAILED lib/matplotlib/tests/test_widgets.py::test_rectangle_selector[MouseButton.RIGHT] - AssertionError
PASSED lib/matplotlib/tests/test_axes.py::test_plot
`;

const SEABORN_LOG = `tests/test_core.py::TestSemanticMapping::test_call_lookup PASSED [ 10%]
tests/test_core.py::TestHueMapping::test_init_from_map FAILED [ 20%]
PASSED tests/test_core.py::TestHueMapping::test_plotter_default_init
FAILED tests/test_core.py::TestHueMapping::test_hue_map_numeric - AssertionError: x
SKIPPED [1] tests/test_core.py:10: needs scipy
tests/test_core.py::TestSizeMapping::test_ignored SKIPPED [ 30%]
`;

/** Django's runner at verbosity 2, with the multi-line and split-line cases the harness handles. */
const DJANGO_LOG = `Testing against Django installed in '/testbed/django'
Importing application auth_tests
Applying sites.0002_alter_domain_unique...test_no_migrations (migrations.test_loader.LoaderTests) ... ok
test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests) ... ok
test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests) ... FAIL
test_help_text (auth_tests.test_validators.UserAttributeSimilarityValidatorTest) ... ERROR
test_skip_me (auth_tests.test_validators.SkipTests) ... skipped 'Requires PIL'
test_newer_style (auth_tests.test_forms.FormTests.test_newer_style) ... OK
test_spaces (auth_tests.test_forms.FormTests) ...  OK
test_output (admin_scripts.tests.ManageTests) ... Output printed by the test
over several lines
ok
test_internal (view_tests.tests.DebugTests) ... Internal Server Error: /raises/
ok
--version is equivalent to version
======================================================================
FAIL: test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)
----------------------------------------------------------------------
ERROR: test_help_text (auth_tests.test_validators.UserAttributeSimilarityValidatorTest)
----------------------------------------------------------------------
Ran 9 tests in 0.010s

FAILED (failures=1, errors=1, skipped=1)
`;

const DJANGO_MAP: StatusMap = {
  'test_no_migrations (migrations.test_loader.LoaderTests)': 'PASSED',
  'test_ascii_validator (auth_tests.test_validators.UsernameValidatorsTests)': 'PASSED',
  'test_unicode_validator (auth_tests.test_validators.UsernameValidatorsTests)': 'FAILED',
  'test_help_text (auth_tests.test_validators.UserAttributeSimilarityValidatorTest)': 'ERROR',
  'test_skip_me (auth_tests.test_validators.SkipTests)': 'SKIPPED',
  'test_newer_style (auth_tests.test_forms.FormTests.test_newer_style)': 'PASSED',
  'test_spaces (auth_tests.test_forms.FormTests)': 'PASSED',
  'test_output (admin_scripts.tests.ManageTests)': 'PASSED',
  'test_internal (view_tests.tests.DebugTests)': 'PASSED',
  '--version is equivalent to version': 'PASSED',
  // `FAIL: <id>` / `ERROR: <id>` keep only the first token (a harness quirk).
  test_unicode_validator: 'FAILED',
  test_help_text: 'ERROR',
};

/** sympy's bin/test runner. */
const SYMPY_LOG = `============================= test process starts ==============================
executable:         /opt/miniconda3/envs/testbed/bin/python  (3.9.19-final-0) [CPython]
architecture:       64-bit
random seed:        12345678

sympy/core/tests/test_basic.py[3]
test_equality ok
test_matches_basic E
test_has F

________________________________________________________________________________
________________ sympy/core/tests/test_basic.py:test_has _________________
Traceback (most recent call last):
  File "/testbed/sympy/core/tests/test_basic.py", line 42, in test_has
    assert b21.has(b1)
AssertionError
=== tests finished: 1 passed, 1 failed, 1 exceptions, in 0.05 seconds ===
`;

describe('SWE-bench log parsers on real-looking logs', () => {
  test.each<[string, LogParser, string, StatusMap]>([
    ['pytest', parseLogPytest, PYTEST_LOG, PYTEST_MAP],
    [
      'pytest_options',
      parseLogPytestOptions,
      OPTIONS_LOG,
      {
        'test_requests.py::TestRequests::test_invalid_url[MissingSchema-hiwpefhipowhefopw]': 'PASSED',
        'test_requests.py::TestRequests::test_certs[/cert.pem]': 'PASSED',
        'tests/test_functional.py::test_functional[//network/share]': 'PASSED',
        'tests/test_self.py::test_glob[/tmp/*/x.py]': 'PASSED',
        'test_requests.py::TestRequests::test_proxy[/conf]': 'FAILED',
        'tests/test_plain.py::test_plain': 'PASSED',
      },
    ],
    [
      'pytest_v2',
      parseLogPytestV2,
      V2_LOG,
      {
        'sklearn/tests/test_base.py::test_clone': 'PASSED',
        'astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_rename_keyword': 'PASSED',
        'astropy/io/fits/tests/test_header.py::TestHeaderFunctions::test_card_constructor': 'FAILED',
        'astropy/units/tests/test_quantity.py::test_skip': 'SKIPPED',
        'sklearn/tests/test_base.py::test_get_params': 'FAILED',
        // The tab is a control character: removed, so id and status run together and token 1 is missing.
      },
    ],
    [
      'matplotlib',
      parseLogMatplotlib,
      MATPLOTLIB_LOG,
      {
        'lib/matplotlib/tests/test_widgets.py::test_span_selector_drag[1-True]': 'PASSED',
        'lib/matplotlib/tests/test_widgets.py::test_rectangle_selector[3]': 'FAILED',
        'lib/matplotlib/tests/test_axes.py::test_plot': 'PASSED',
      },
    ],
    [
      'seaborn',
      parseLogSeaborn,
      SEABORN_LOG,
      {
        'tests/test_core.py::TestSemanticMapping::test_call_lookup': 'PASSED',
        'tests/test_core.py::TestHueMapping::test_plotter_default_init': 'PASSED',
        'tests/test_core.py::TestHueMapping::test_hue_map_numeric': 'FAILED',
      },
    ],
    ['django', parseLogDjango, DJANGO_LOG, DJANGO_MAP],
    [
      'sympy',
      parseLogSympy,
      SYMPY_LOG,
      { 'sympy/core/tests/test_basic.py:test_has': 'FAILED', test_equality: 'PASSED', test_matches_basic: 'ERROR', test_has: 'FAILED' },
    ],
  ])('%s', (_name, parse, log, expected) => {
    expect(parse(log)).toEqual(expected);
  });

  it('lets a later line for the same test win', () => {
    expect(parseLogPytest('FAILED t.py::a - x\nPASSED t.py::a\n')).toEqual({ 't.py::a': 'PASSED' });
  });

  it('marks a Django test passed when its "ok" was split off by a System check message', () => {
    const log = 'test_split (check_framework.tests.T) ... System check identified no issues (0 silenced)\nok\n';
    expect(parseLogDjango(log)).toEqual({ 'test_split (check_framework.tests.T)': 'PASSED' });
    const installed = "test_install (admin_scripts.tests.X) ... Testing against Django installed in '/testbed/django' with up to 4 processes\nSystem check identified no issues (0 silenced).\nok\n";
    expect(parseLogDjango(installed)['test_install (admin_scripts.tests.X)']).toBe('PASSED');
  });

  it('reads nothing from an empty log', () => {
    for (const parse of Object.values(LOG_PARSERS)) expect(parse('')).toEqual({});
  });
});

describe('which parser an instance uses', () => {
  test.each([
    [{ repo: 'django/django' }, 'django'],
    [{ repo: 'psf/requests' }, 'pytest_options'],
    [{ repo: 'pylint-dev/pylint' }, 'pytest_options'],
    [{ repo: 'astropy/astropy' }, 'pytest_v2'],
    [{ repo: 'scikit-learn/scikit-learn' }, 'pytest_v2'],
    [{ repo: 'sphinx-doc/sphinx' }, 'pytest_v2'],
    [{ repo: 'matplotlib/matplotlib' }, 'matplotlib'],
    [{ repo: 'mwaskom/seaborn' }, 'seaborn'],
    [{ repo: 'sympy/sympy' }, 'sympy'],
    [{ repo: 'pallets/flask' }, 'pytest'],
    [{ repo: 'new/repo', log_parser: 'parse_log_django' }, 'django'],
    [{ repo: 'new/repo', log_parser: 'parse_log_unknown' }, 'pytest'],
    [{ repo: 'new/repo' }, 'pytest'],
  ])('%o → %s', (instance, name) => {
    expect(parserNameFor(instance)).toBe(name);
  });
});

describe("the Django split pass 'Internal Server Error: /…/' then 'ok', read as a scan", () => {
  const regex = /^(.*?)\s\.\.\.\sInternal Server Error: \/(.*)\/\nok$/gm;
  const pieces = ['a', ' ', '.', '...', ' ... ', 'Internal Server Error: /', '/', '\n', 'ok', '\nok', '\r', 'x/', '\t'];

  test('finds what the harness expression finds (random logs)', () => {
    const next = seededIntegers(11);
    let found = 0;
    for (let round = 0; round < 20_000; round += 1) {
      let log = '';
      for (let count = next() % 12; count > 0; count -= 1) log += pieces[next() % pieces.length];
      if (next() % 2) log += `t${next() % 9} ... Internal Server Error: /p${next() % 3}/\nok${['', '\n', '\r\n', 'x'][next() % 4]}`;
      const expected = [...log.matchAll(regex)].map((match) => match[1]);
      found += expected.length;
      expect(djangoServerErrorPasses(log), JSON.stringify(log)).toEqual(expected);
    }
    expect(found).toBeGreaterThan(1000);
  });

  test("a line of ' ... Internal Server Error: /' repeated, then one that closes: read in one pass", () => {
    const log = `${'a ... Internal Server Error: /'.repeat(32_000)}\nb ... Internal Server Error: /x/\nok\n`;
    expect(djangoServerErrorPasses(log)).toEqual(['b']);
    expect(parseLogDjango(log)).toMatchObject({ b: 'PASSED' });
  });
});
