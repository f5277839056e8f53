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
 * - takes out, for the run, every symlink in the working copy that the pristine repository does not
 *   have with the same target (a directory or a plugin reached through one is outside every check
 *   above), and puts them back after;
 * - loads pytest's entry-point plugins (`pytest11`) with the working copy off `sys.path`: only the
 *   interpreter's own distributions register plugins, never a `*.dist-info` the agent wrote;
 * - deletes the working copy's `__pycache__` folders and writes none, so a planted `*.pyc` (pytest
 *   reads its own rewritten-test cache, Python an unchecked-hash one) cannot replace a restored test;
 * - runs `pytest.main(args)` with a plugin that writes every test's outcome and a final
 *   `finished` record (the exit status, and any tampering it saw) to the report file as JSON lines.
 *
 * The report is the score's only source: text the tests print is shown to the agent, never parsed.
 * `MANIFEST` is substituted by the harness: `{keep, plugins, links, trees, treeFiles, shadowFiles, hookFiles}` (`keep`: the pristine
 * candidates' paths, or null = inventory mode: report the candidates and the files hook
 * implementations come from, move nothing, as at reset; `links`: the pristine symlinks, path -> target;
 * `hookFiles`: the files the pristine run's hook implementations and outside plugin modules came
 * from, or null when unknown; `inipath`: the configuration file the pristine run read, or null). What changes with every
 * run comes from the launcher's own directory, `/tmp/debug-gym-score-TOKEN`: the report and the
 * moved-files record are written there, set-aside files get the suffix `.debug-gym-aside-TOKEN`. The
 * source is then the same for every run of an env, which a fork server compiles once.
 */
export const PYTEST_LAUNCHER_SOURCE = String.raw`
import json, os, re, shutil, sys

MANIFEST = json.loads(__MANIFEST__)
HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, 'report.jsonl')
MOVED = os.path.join(HERE, 'moved.json')
SUFFIX = '.debug-gym-aside-' + os.path.basename(HERE).rsplit('-', 1)[-1]
# Test folders: a file there the pristine repository does not have is set aside like a conftest.
TREES = tuple(tree + '/' for tree in MANIFEST.get('trees') or [])
TREE_FILES = set(MANIFEST.get('treeFiles') or [])
# A module file named like a test folder (tests.py, ...) takes over a folder without __init__.py: set aside.
SHADOW = re.compile(r'^(tests?|testing)(\.py|\.pyc|\.so|\.pyd|\.[^.]+\.(so|pyd))$', re.I)
SHADOW_FILES = None if MANIFEST.get('shadowFiles') is None else set(MANIFEST['shadowFiles'])
CANDIDATE_NAMES = {
    'conftest.py', 'pytest.ini', '.pytest.ini', 'tox.ini', 'setup.cfg', 'pyproject.toml',
    'pytest.py', 'pytest', '_pytest', 'pytest.pyc', 'pluggy', 'pluggy.py', '_pytest.py', 'py.py',
    'sitecustomize.py', 'usercustomize.py',
}


# Bytecode caches the run could not delete: pytest and importlib would read a forged test module from them.
STUCK_CACHES = []


def remove_cache(path):
    """Delete a __pycache__ (a symlink is unlinked, a folder made writable first); True when it is gone."""
    try:
        if os.path.islink(path) or not os.path.isdir(path):
            os.unlink(path)
        else:
            for current, _dirs, _files in os.walk(path):
                os.chmod(current, 0o700)
            shutil.rmtree(path)
    except OSError:
        pass
    return not os.path.lexists(path)


def candidates(root, clear_caches, links=None):
    """The candidates (relative paths) and, when links is given, the symlinks whose target differs
    from the pristine one's, as (relative path, target)."""
    found = []
    strange = []
    for current, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(current, root)
        cache = os.path.join(current, '__pycache__')
        if clear_caches and os.path.lexists(cache) and not remove_cache(cache):
            STUCK_CACHES.append('__pycache__' if rel_dir == '.' else rel_dir + '/__pycache__')
        dirs[:] = [d for d in dirs if d not in ('.git', '__pycache__')]
        for name in list(dirs) + files:
            rel = name if rel_dir == '.' else rel_dir + '/' + name
            if links is not None:
                path = os.path.join(current, name)
                if os.path.islink(path):
                    try:
                        target = os.readlink(path)
                    except OSError:
                        target = None
                    if links.get(rel) != target:
                        strange.append((rel, target))
                        if name in dirs:
                            dirs.remove(name)
                        continue
            if name in CANDIDATE_NAMES or name.endswith('.pth'):
                found.append(rel)
                if name in dirs:
                    dirs.remove(name)
            elif links is not None and TREES and name not in dirs and rel.startswith(TREES) and rel not in TREE_FILES:
                found.append(rel)
            elif links is not None and TREES and SHADOW_FILES is not None and name not in dirs and SHADOW.match(name) and rel not in SHADOW_FILES:
                found.append(rel)
    return sorted(found), strange


def without_working_copy(load, workdir):
    """pluggy's load_setuptools_entrypoints, run with the working copy (and the current directory,
    which is the working copy) off sys.path: a *.dist-info the agent wrote there registers nothing.
    Entries the interpreter itself put on sys.path (its site-packages, an editable install's path)
    stay."""
    def load_installed(self, group, name=None):
        saved = list(sys.path)
        sys.path[:] = [entry for entry in saved if entry not in ('', '.') and os.path.abspath(entry) != workdir]
        try:
            return load(self, group, name)
        finally:
            sys.path[:] = saved
    return load_installed


def main():
    report_path = REPORT
    keep = MANIFEST['keep']
    workdir = os.getcwd()
    # Our own directory; the working copy joins sys.path only after pytest is imported.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    import pytest, _pytest, pluggy
    import _pytest.runner, _pytest.reports, _pytest.main, _pytest.python, _pytest.terminal, _pytest.config
    inventory = keep is None
    found, strange = candidates(workdir, not inventory, None if inventory else dict(MANIFEST.get('links') or {}))
    moved = []
    unlinked = []
    refused = []
    if not inventory:
        keep_set = set(keep)
        # Symlinks first: a set-aside file is renamed where it is, never through a link.
        for rel, target in strange:
            try:
                os.unlink(os.path.join(workdir, rel))
                unlinked.append((rel, target))
            except OSError as error:
                refused.append('%s (%s)' % (rel, error.strerror))
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
            json.dump({'renamed': [[os.path.join(workdir, rel), target] for rel, target in moved],
                       'links': [[os.path.join(workdir, rel), target] for rel, target in unlinked if target is not None]}, sidecar)
    # Entry-point plugins come from the interpreter's distributions, not from the working copy.
    pluggy.PluginManager.load_setuptools_entrypoints = without_working_copy(pluggy.PluginManager.load_setuptools_entrypoints, os.path.abspath(workdir))
    report = open(report_path, 'x', encoding='utf-8')
    sys.dont_write_bytecode = True
    sys.path.insert(0, workdir)
    plugin = Recorder(report, workdir, keep)
    # First registered, last run: after every atexit handler of the code under test.
    import atexit
    atexit.register(plugin.seal)
    plugin.found = found
    plugin.moved = sorted([rel for rel, _ in moved] + [rel for rel, _ in unlinked])
    if refused:
        plugin.tampered.append('could not set aside ' + ', '.join(refused))
    if STUCK_CACHES:
        plugin.tampered.append('could not delete the bytecode cache ' + ', '.join(STUCK_CACHES))
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
        for rel, target in unlinked:
            try:
                if target is not None:
                    os.symlink(target, os.path.join(workdir, rel))
                restored += 1
            except OSError:
                pass
        if not inventory and restored == len(moved) + len(unlinked):
            os.unlink(MOVED)
    sys.stdout.flush()
    plugin.exit_code = int(status)
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
        # Where hook implementations may come from: pytest's and pluggy's own files, and the files
        # the pristine run's implementations came from (recorded on that run: None in MANIFEST).
        self.trusted_dirs = [os.path.dirname(os.path.realpath(module.__file__)) + os.sep for module in (pytest, _pytest, pluggy)]
        hook_files = MANIFEST.get('hookFiles')
        self.pristine_hook_files = None if hook_files is None else set(hook_files)
        self.hook_files = set()
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
        self.recorder_methods = {name: getattr(Recorder, name) for name in ('pytest_runtest_logreport', 'pytest_collectreport', 'pytest_sessionfinish', 'finish', 'audit_hooks', 'audit_items', 'check_plugin', 'hook_file', 'seal')}

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
        inipath = getattr(config, 'inipath', None) or getattr(config, 'inifile', None)
        self.inipath = self.recorded_path(str(inipath)) if inipath else ''
        expected = MANIFEST.get('inipath')
        if self.allowed_plugins is not None and expected is not None and self.inipath != expected:
            self.tampered.append('pytest read its configuration from %s, the pristine run from %s' % (self.inipath or 'no file', expected or 'no file'))
        self.meta_path = list(sys.meta_path)
        plugins = config.pluginmanager.get_plugins()
        for plugin in plugins:
            self.check_plugin(plugin)
        self.known_plugins = set(id(p) for p in plugins)

    def pytest_plugin_registered(self, plugin, manager):
        if getattr(self, 'known_plugins', None) is None or id(plugin) in self.known_plugins:
            return
        self.check_plugin(plugin)

    def inside(self, path):
        return path == self.workdir or path.startswith(self.workdir + os.sep)

    def check_plugin(self, plugin):
        path = source_file(plugin)
        if path is None:
            self.tampered.append('a pytest plugin without a source file (%r) was registered' % (type(plugin).__name__,))
            return
        lexical, real = os.path.abspath(path), os.path.realpath(path)
        if not self.inside(lexical) and not self.inside(real):
            # A module from outside the working copy (an installed plugin; a conftest.py in a parent
            # directory): one the pristine run loaded, or pytest's own. Other objects are judged by
            # where their hook implementations' code comes from (audit_hooks).
            if type(plugin).__name__ == 'module' and not any(real.startswith(prefix) for prefix in self.trusted_dirs):
                if self.allowed_plugins is None:
                    self.hook_files.add(real)
                elif self.pristine_hook_files is not None and real not in self.pristine_hook_files:
                    self.tampered.append('a pytest plugin from outside the working copy (%s) that the pristine run did not load was registered' % real)
            return
        if lexical != real:
            self.tampered.append('a pytest plugin reached through a symlink (%s -> %s) was registered' % (lexical, real))
            return
        rel = os.path.relpath(real, self.workdir).replace(os.sep, '/')
        if os.path.basename(rel) == 'conftest.py' and (self.inventory or rel in self.keep):
            return
        name = self.config.pluginmanager.get_name(plugin) or ''
        if self.allowed_plugins is None:
            self.workdir_plugins.add((name, rel))
        elif (name, rel) not in self.allowed_plugins:
            self.tampered.append('a pytest plugin from the working copy (%s) was registered' % rel)

    def recorded_path(self, path):
        """A path as the report records it: relative inside the working copy, real outside."""
        real = os.path.realpath(path)
        return os.path.relpath(real, self.workdir).replace(os.sep, '/') if self.inside(real) else real

    def hook_file(self, function):
        """The file a hook implementation's code comes from, as recorded: relative inside the working
        copy, real path outside; None when it has no Python code or was reached through a symlink."""
        seen = 0
        while seen < 20 and not hasattr(function, '__code__'):
            function = getattr(function, '__func__', None) or getattr(function, 'func', None) or getattr(function, '__wrapped__', None)
            seen += 1
        code = getattr(function, '__code__', None)
        filename = getattr(code, 'co_filename', None)
        if not isinstance(filename, str) or not os.path.isabs(filename):
            return None
        lexical, real = os.path.abspath(filename), os.path.realpath(filename)
        if self.inside(lexical) or self.inside(real):
            if lexical != real:
                return None
            return os.path.relpath(real, self.workdir).replace(os.sep, '/')
        return real

    def audit_hooks(self):
        """Every hook implementation (however it got there: a registered plugin, or one put in a
        hook's list directly) must come from pytest, pluggy or a file the pristine run's came from;
        on the pristine run itself, record those files."""
        relay = self.config.pluginmanager.hook
        for caller in list(vars(relay).values()):
            get = getattr(caller, 'get_hookimpls', None)
            if get is None:
                continue
            for impl in get():
                if getattr(impl, 'plugin', None) is self:
                    continue
                path = self.hook_file(getattr(impl, 'function', None))
                label = '%s in %s' % (getattr(caller, 'name', '?'), getattr(impl, 'plugin_name', '?'))
                if path is None:
                    self.tampered.append('a hook implementation without trustworthy source (%s) was registered' % label)
                elif any(path.startswith(prefix) for prefix in self.trusted_dirs):
                    continue
                elif self.allowed_plugins is None:
                    self.hook_files.add(path)  # the pristine run
                elif self.pristine_hook_files is not None and path in self.pristine_hook_files:
                    continue
                elif self.pristine_hook_files is None and not os.path.isabs(path) and path in self.keep:
                    continue  # no pristine run (evalOnReset off): the pristine configuration files only
                else:
                    self.tampered.append('a hook implementation from %s (%s) that the pristine repository does not have was registered' % (path, label))

    def pytest_collection_finish(self, session):
        self.audit_hooks()
        self.items = {}
        for item in getattr(session, 'items', []):
            try:
                obj = getattr(item, 'obj', None)
            except Exception:
                obj = None
            self.items[item.nodeid] = (item, getattr(obj, '__code__', None))

    def audit_items(self):
        """Tests replaced after collection: an item's own runtest, or its function's code swapped."""
        for nodeid, (item, code) in getattr(self, 'items', {}).items():
            if 'runtest' in vars(item):
                self.tampered.append('the test %s was replaced (its runtest) while the tests ran' % nodeid)
            obj = vars(item).get('obj') or vars(item).get('_obj')
            if code is not None and getattr(obj, '__code__', code) is not code:
                self.tampered.append('the test %s was replaced (its code) while the tests ran' % nodeid)

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
        self.audit_hooks()
        self.audit_items()
        lines = [{'type': 'test', 'id': nodeid, 'outcome': outcome} for nodeid, outcome in self.outcomes.items()]
        lines += [{'type': 'collect_error', 'id': nodeid} for nodeid in self.collect_errors]
        lines.append({
            'type': 'finished', 'exitstatus': exitstatus, 'candidates': self.found, 'setAside': self.moved,
            'plugins': sorted(self.workdir_plugins),
            'hookFiles': sorted(self.hook_files),
            'inipath': getattr(self, 'inipath', ''),
            'rootdir': os.path.relpath(os.path.realpath(str(self.config.rootpath)), self.workdir).replace(os.sep, '/'),
            'tampered': sorted(set(self.tampered)),
        })
        self.sealed = ''.join(json.dumps(line) + '\n' for line in lines)
        self.report.write(self.sealed)
        self.report.close()

    def seal(self):
        """The last thing the process does (registered first with atexit, so it runs after every
        handler the code under test registered): write the report as it was at the session's end
        again, with a final seal record, and leave at once (no daemon thread writes after it). A
        report without the seal scores 0."""
        text = getattr(self, 'sealed', None)
        if text is not None:
            text += json.dumps({'type': 'sealed'}) + '\n'
            fd = os.open(REPORT, os.O_WRONLY | os.O_TRUNC | os.O_CREAT | getattr(os, 'O_NOFOLLOW', 0), 0o600)
            os.write(fd, text.encode('utf-8'))
            os.close(fd)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(getattr(self, 'exit_code', 1))


main()
`;
