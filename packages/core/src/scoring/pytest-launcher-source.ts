/**
 * The program a scoring run executes instead of `python -m pytest` (Python source, written afresh
 * under a random directory outside the working copy for every run). It
 *
 * - imports pytest before the working copy is on `sys.path`, so a `pytest.py`, `_pytest/` or
 *   `pluggy/` there cannot stand in for it;
 * - moves aside, for the run, every file pytest or Python would load as configuration or plugin
 *   (`conftest.py`, `pytest.ini`, `tox.ini`, `setup.cfg`, `pyproject.toml`, shadows of pytest,
 *   `sitecustomize.py`, `*.pth`) that was not in the pristine repository (renamed in place with a
 *   random suffix), and puts them back after;
 * - deletes the working copy's `__pycache__` folders and writes none, so a planted `*.pyc` (pytest
 *   reads its own rewritten-test cache, Python an unchecked-hash one) cannot replace a restored test;
 * - runs `pytest.main(args)` with a plugin that writes every test's outcome and a final
 *   `finished` record (the exit status, and any tampering it saw) to the report file as JSON lines.
 *
 * The report is the score's only source: text the tests print is shown to the agent, never parsed.
 * `MANIFEST` is substituted by the harness: `{keep, plugins}` (`keep`: the pristine candidates' paths,
 * or null = inventory mode: report the candidates, move nothing, as at reset). What changes with every
 * run comes from the launcher's own directory, `/tmp/debug-gym-score-TOKEN`: the report and the
 * moved-files record are written there, set-aside files get the suffix `.debug-gym-aside-TOKEN`. The
 * source is then the same for every run of an env, which a fork server compiles once.
 */
export const PYTEST_LAUNCHER_SOURCE = String.raw`
import json, os, shutil, sys

MANIFEST = json.loads(__MANIFEST__)
HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, 'report.jsonl')
MOVED = os.path.join(HERE, 'moved.json')
SUFFIX = '.debug-gym-aside-' + os.path.basename(HERE).rsplit('-', 1)[-1]
CANDIDATE_NAMES = {
    'conftest.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml',
    'pytest.py', 'pytest', '_pytest', 'pytest.pyc', 'pluggy', 'pluggy.py', '_pytest.py', 'py.py',
    'sitecustomize.py', 'usercustomize.py',
}


def candidates(root, clear_caches):
    found = []
    for current, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(current, root)
        if clear_caches and '__pycache__' in dirs:
            shutil.rmtree(os.path.join(current, '__pycache__'), ignore_errors=True)
        dirs[:] = [d for d in dirs if d not in ('.git', '__pycache__')]
        for name in list(dirs) + files:
            if name in CANDIDATE_NAMES or name.endswith('.pth'):
                rel = name if rel_dir == '.' else rel_dir + '/' + name
                found.append(rel)
                if name in dirs:
                    dirs.remove(name)
    return sorted(found)


def main():
    report_path = REPORT
    keep = MANIFEST['keep']
    workdir = os.getcwd()
    # Our own directory; the working copy joins sys.path only after pytest is imported.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    import pytest, _pytest, pluggy
    import _pytest.runner, _pytest.reports, _pytest.main, _pytest.python, _pytest.terminal, _pytest.config
    found = candidates(workdir, keep is not None)
    moved = []
    refused = []
    if keep is not None:
        keep_set = set(keep)
        for rel in found:
            if rel in keep_set:
                continue
            target = os.path.join(workdir, rel + SUFFIX)
            try:
                os.rename(os.path.join(workdir, rel), target)
                moved.append((rel, target))
            except OSError as error:
                refused.append('%s (%s)' % (rel, error.strerror))
        # Read by the harness if this process dies before it puts them back.
        with open(MOVED, 'w', encoding='utf-8') as sidecar:
            json.dump([[os.path.join(workdir, rel), target] for rel, target in moved], sidecar)
    report = open(report_path, 'x', encoding='utf-8')
    sys.dont_write_bytecode = True
    sys.path.insert(0, workdir)
    plugin = Recorder(report, workdir, keep)
    plugin.found = found
    plugin.moved = [rel for rel, _ in moved]
    if refused:
        plugin.tampered.append('could not set aside ' + ', '.join(refused))
    try:
        status = pytest.main(sys.argv[1:], plugins=[plugin])
    finally:
        restored = 0
        for rel, target in moved:
            try:
                os.rename(target, os.path.join(workdir, rel))
                restored += 1
            except OSError:
                pass
        if keep is not None and restored == len(moved):
            os.unlink(MOVED)
    sys.stdout.flush()
    sys.exit(int(status))


def source_file(obj):
    if type(obj).__name__ == 'module':
        return getattr(obj, '__file__', None)
    name = obj.__module__ if isinstance(obj, type) else getattr(type(obj), '__module__', None)
    return getattr(sys.modules.get(name or ''), '__file__', None)


class Recorder:
    def __init__(self, report, workdir, keep):
        import _pytest.runner, _pytest.reports, _pytest.main, _pytest.python, _pytest.terminal, _pytest.config
        import pluggy, pytest
        self.report = report
        self.workdir = os.path.realpath(workdir)
        self.keep = set(keep or [])
        self.inventory = keep is None
        # Plugins from the working copy the pristine run loaded (a pytest_plugins module, -p in
        # the pristine ini): None on that run, which records them instead of refusing them.
        allowed = MANIFEST.get('plugins')
        self.allowed_plugins = None if allowed is None else set((entry[0], entry[1]) for entry in allowed)
        self.workdir_plugins = set()
        self.tampered = []
        self.outcomes = {}
        self.collect_errors = []
        self.pytest_file = pytest.__file__
        hook_caller = getattr(pluggy, 'HookCaller', None) or getattr(getattr(pluggy, '_hooks', None), '_HookCaller', None)
        self.watched = {
            '_pytest.runner.call_and_report': (_pytest.runner, 'call_and_report'),
            '_pytest.runner.runtestprotocol': (_pytest.runner, 'runtestprotocol'),
            '_pytest.runner.call_runtest_hook': (_pytest.runner, 'call_runtest_hook'),
            '_pytest.runner.pytest_runtest_makereport': (_pytest.runner, 'pytest_runtest_makereport'),
            '_pytest.runner.CallInfo.from_call': (_pytest.runner.CallInfo, 'from_call'),
            '_pytest.reports.TestReport.from_item_and_call': (_pytest.reports.TestReport, 'from_item_and_call'),
            '_pytest.reports.TestReport.__init__': (_pytest.reports.TestReport, '__init__'),
            '_pytest.reports.BaseReport.passed': (_pytest.reports.BaseReport, 'passed'),
            '_pytest.reports.BaseReport.failed': (_pytest.reports.BaseReport, 'failed'),
            '_pytest.main.pytest_runtestloop': (_pytest.main, 'pytest_runtestloop'),
            '_pytest.main.Session.perform_collect': (_pytest.main.Session, 'perform_collect'),
            '_pytest.python.pytest_pyfunc_call': (_pytest.python, 'pytest_pyfunc_call'),
            '_pytest.python.Function.runtest': (_pytest.python.Function, 'runtest'),
            '_pytest.terminal.TerminalReporter.pytest_runtest_logreport': (_pytest.terminal.TerminalReporter, 'pytest_runtest_logreport'),
            'pytest.main': (pytest, 'main'),
            'sys.exit': (sys, 'exit'),
        }
        if hook_caller is not None:
            self.watched['pluggy.HookCaller.__call__'] = (hook_caller, '__call__')
            self.watched['pluggy.HookCaller.call_historic'] = (hook_caller, 'call_historic')
        self.originals = {name: self.lookup(owner, attr) for name, (owner, attr) in self.watched.items()}
        self.recorder_methods = {name: getattr(Recorder, name) for name in ('pytest_runtest_logreport', 'pytest_collectreport', 'pytest_sessionfinish', 'finish')}

    @staticmethod
    def lookup(owner, attr):
        if isinstance(owner, type):
            for klass in owner.__mro__:
                if attr in klass.__dict__:
                    return klass.__dict__[attr]
            return None
        return getattr(owner, attr, None)

    def pytest_configure(self, config):
        self.config = config
        self.meta_path = list(sys.meta_path)
        plugins = config.pluginmanager.get_plugins()
        for plugin in plugins:
            self.check_plugin(plugin)
        self.known_plugins = set(id(p) for p in plugins)

    def pytest_plugin_registered(self, plugin, manager):
        if getattr(self, 'known_plugins', None) is None or id(plugin) in self.known_plugins:
            return
        self.check_plugin(plugin)

    def check_plugin(self, plugin):
        path = source_file(plugin)
        if path is None:
            self.tampered.append('a pytest plugin without a source file (%r) was registered' % (type(plugin).__name__,))
            return
        real = os.path.realpath(path)
        if real == self.workdir or real.startswith(self.workdir + os.sep):
            rel = os.path.relpath(real, self.workdir).replace(os.sep, '/')
            if os.path.basename(rel) == 'conftest.py' and (self.inventory or rel in self.keep):
                return
            name = self.config.pluginmanager.get_name(plugin) or ''
            if self.allowed_plugins is None:
                self.workdir_plugins.add((name, rel))
            elif (name, rel) not in self.allowed_plugins:
                self.tampered.append('a pytest plugin from the working copy (%s) was registered' % rel)

    def pytest_collectreport(self, report):
        if report.failed:
            self.collect_errors.append(report.nodeid)

    def pytest_runtest_logreport(self, report):
        previous = self.outcomes.get(report.nodeid)
        if hasattr(report, 'wasxfail'):
            outcome = 'xfailed' if report.skipped else 'xpassed'
        elif report.failed:
            outcome = 'failed' if report.when == 'call' else 'error'
        elif report.skipped:
            outcome = 'skipped'
        else:
            outcome = 'passed'
        if previous in ('failed', 'error') or (previous is not None and outcome == 'passed'):
            return
        self.outcomes[report.nodeid] = outcome

    def pytest_sessionfinish(self, session, exitstatus):
        self.finish(int(exitstatus))

    def finish(self, exitstatus):
        for name, (owner, attr) in self.watched.items():
            if self.lookup(owner, attr) is not self.originals[name]:
                self.tampered.append(name + ' was replaced while the tests ran')
        for name, method in self.recorder_methods.items():
            if getattr(Recorder, name) is not method:
                self.tampered.append("debug-gym's report plugin was modified while the tests ran")
        for finder in sys.meta_path:
            if finder not in self.meta_path:
                path = source_file(finder)
                if path is None or os.path.realpath(path).startswith(self.workdir + os.sep):
                    self.tampered.append('an import hook (%s) was installed while the tests ran' % type(finder).__name__)
        if sys.modules.get('pytest') is None or getattr(sys.modules['pytest'], '__file__', None) != self.pytest_file:
            self.tampered.append('the pytest module was replaced')
        for plugin in self.config.pluginmanager.get_plugins():
            if id(plugin) not in self.known_plugins:
                self.check_plugin(plugin)
        lines = [{'type': 'test', 'id': nodeid, 'outcome': outcome} for nodeid, outcome in self.outcomes.items()]
        lines += [{'type': 'collect_error', 'id': nodeid} for nodeid in self.collect_errors]
        lines.append({
            'type': 'finished', 'exitstatus': exitstatus, 'candidates': self.found, 'setAside': self.moved,
            'plugins': sorted(self.workdir_plugins),
            'rootdir': os.path.relpath(os.path.realpath(str(self.config.rootpath)), self.workdir).replace(os.sep, '/'),
            'tampered': sorted(set(self.tampered)),
        })
        self.report.write(''.join(json.dumps(line) + '\n' for line in lines))
        self.report.close()


main()
`;
