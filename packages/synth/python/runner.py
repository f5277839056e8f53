"""debug-gym synth's test runner, run inside the sandbox (forked by the fork server).

Reads a JSON request on stdin: {"tests": [node ids] or null for the whole suite, "coverage": bool,
"root": working copy}. Runs pytest in-process on those tests and prints, after a marker line, one JSON
object: {"tests": {nodeid: {"outcome", "exception", "message", "frames": [[file, line], ...]}},
"coverage": {"functions": [[file, firstline, name], ...], "tests": {nodeid: [function index, ...]}}}.
Frames are the failing test's traceback from the test function to where the exception was raised,
limited to files of the working copy. Coverage records which functions of the working copy each test
called (sys.setprofile, 'call' events).
"""
import json
import os
import sys

MARKER = '@@debug-gym-synth-result@@'


def main():
    request = json.loads(sys.stdin.read() or '{}')
    root = os.path.realpath(request.get('root') or os.getcwd())
    # As `python -m pytest` would: the working directory first on sys.path.
    sys.path.insert(0, root)
    import pytest

    prefix = root + os.sep
    results = {}
    functions = {}
    function_list = []
    covered = {}

    def relative(path):
        path = os.path.realpath(path)
        return path[len(prefix):] if path.startswith(prefix) else None

    class Collector:
        current = None
        seen = None

        def profile(self, frame, event, arg):
            if event != 'call':
                return
            code = frame.f_code
            key = (code.co_filename, code.co_firstlineno)
            if key in self.seen:
                return
            self.seen.add(key)
            index = functions.get(key)
            if index is None:
                path = relative(code.co_filename)
                if path is None or code.co_name.startswith('<'):
                    functions[key] = -1
                    return
                index = functions[key] = len(function_list)
                function_list.append([path, code.co_firstlineno, code.co_name])
            if index >= 0:
                covered.setdefault(self.current, []).append(index)

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            if request.get('coverage'):
                self.current = item.nodeid
                self.seen = set()
                sys.setprofile(self.profile)
                try:
                    yield
                finally:
                    sys.setprofile(None)
            else:
                yield

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            report = outcome.get_result()
            entry = results.setdefault(item.nodeid, {'outcome': 'passed'})
            if report.skipped and entry['outcome'] == 'passed':
                entry['outcome'] = 'skipped'
            if report.failed:
                if entry['outcome'] in ('failed', 'error'):
                    return
                entry['outcome'] = 'failed' if report.when == 'call' else 'error'
                excinfo = call.excinfo
                if excinfo is not None:
                    entry['exception'] = excinfo.type.__name__
                    entry['message'] = str(excinfo.value)[:300]
                    frames = []
                    tb = excinfo.tb
                    while tb is not None:
                        path = relative(tb.tb_frame.f_code.co_filename)
                        if path is not None:
                            frames.append([path, tb.tb_lineno, tb.tb_frame.f_code.co_name])
                        tb = tb.tb_next
                    entry['frames'] = frames

    tests = request.get('tests')
    args = ['-q', '-p', 'no:cacheprovider', '--tb=no', '--disable-warnings', '-o', 'addopts=', '--color=no']
    if tests is not None:
        if not tests:
            print(MARKER)
            print(json.dumps({'tests': {}, 'exit': 0}))
            return
        args += tests
    else:
        args += request.get('paths') or []
    devnull = open(os.devnull, 'w')
    saved = sys.stdout
    sys.stdout = devnull
    try:
        code = pytest.main(args, plugins=[Collector()])
    finally:
        sys.stdout = saved
    result = {'tests': results, 'exit': int(code)}
    if request.get('coverage'):
        result['coverage'] = {'functions': function_list, 'tests': covered}
    print(MARKER)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
