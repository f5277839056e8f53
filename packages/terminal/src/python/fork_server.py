"""debug-gym's fork server: one warm Python per sandbox that forks a fresh child per run.

Started by the sandbox helper (docker-helper-source.ts) as the sandbox user, through the same shell
wrapper as a cold command, as ``<python> -c BOOT FD``: BOOT reads this source from the control
socket FD (an AF_UNIX SOCK_SEQPACKET socketpair whose other end only the helper holds) and runs it.

It imports, once, what the cold programs import before any code of the repository runs (groups):

- ``pytest``: what debug-gym's scoring launcher imports (pytest and the internals it watches) and
  pytest's default plugins (not the ``pytest11`` entry-point plugins: see default_plugin_modules);
- ``pdb``: what the pdb driver imports (pdb and its modules).

Then, for each request ``{argv, env, cwd, uses, pty, pdeathsig}`` with three descriptors (stdin,
stdout, stderr: the helper's pipe ends, or a PTY slave), it checks that a child would behave like the
cold ``<python> ARGV`` and forks; the child rebuilds a fresh interpreter's state (argv, path,
environment with what the shell and Python add, `__main__`, standard streams, signals, the modules it
imported and nothing else) and runs the program. The helper hears ``{"id", "pid"}`` (or
``{"id", "refused": reason}``: the helper then runs the cold command) and later ``{"exit", "code"}``.

The server never imports the repository's code and never runs pytest (it builds pytest's
configuration once, before anything is read: prepare_pytest_config), and holds nothing a child can use:
it is non-dumpable (no ptrace, no /proc/PID/mem or fd for the sandbox user), its control socket is
closed in every child, and a child that kills or stops it only costs speed (the helper falls back to
cold commands and starts a new server).

Python >= 3.8, standard library only.
"""

import os
import sys

SERVER_PID = os.getpid()
BASE_MODULES = set(sys.modules)
START_ENV = dict(os.environ)
START_CWD = os.getcwd()
ORIG_ARGV0 = (getattr(sys, "orig_argv", None) or [sys.executable])[0]
# The interpreter's command line up to the program (`python -c BOOT`): what precedes sys.argv[1:].
ARGV_PREFIX = sys.orig_argv[:len(sys.orig_argv) - len(sys.argv) + 1] if hasattr(sys, "orig_argv") else [ORIG_ARGV0]
# sys.path of a fresh interpreter without its first entry (which depends on how it was started).
BASE_PATH = list(sys.path[1:])
# `-c` put '' (the working directory: the agent's working copy) first on sys.path. Off before any other
# import: a ctypes.py, json.py or socket.py the agent wrote there would otherwise run inside this server,
# which scoring runs do not pause (a writer thread racing the restore; issue 26, red team).
if sys.path and sys.path[0] == "":
    del sys.path[0]
# The standard streams a fresh interpreter makes (see create_stdio in CPython's pylifecycle.c).
BUFFERED_STDIO = not getattr(sys.stdout, "write_through", False)
STDIO = [(s.encoding, s.errors) if s is not None else ("utf-8", "strict") for s in (sys.stdin, sys.stdout, sys.stderr)]
_signal = sys.modules["_signal"]
START_SIGNALS = {}
for _number in range(1, _signal.NSIG):
    try:
        START_SIGNALS[_number] = _signal.getsignal(_number)
    except (ValueError, OSError):
        pass
BUILTIN_IMPORTER = sys.modules["__main__"].__dict__.get("__loader__")
MAIN_HAS_ANNOTATIONS = "__annotations__" in sys.modules["__main__"].__dict__
CTL_FD = int(sys.argv[1])
WORKDIR = os.path.realpath(sys.argv[2])
# Imported in this order; a child keeps a prefix of it (later groups may use earlier ones, never the
# other way round, so dropping a later group leaves nothing dangling).
GROUP_ORDER = [group for group in ("pytest", "pdb") if group in sys.argv[3].split(",")]
# Children forked ahead of their request (see Standbys); "-" turns them off. "zygote": this server
# forks the fork servers of the local backend's sandboxes (see zygote_request), and nothing else.
MODE = sys.argv[5] if len(sys.argv) > 5 else "standbys"
STANDBYS_ON = MODE not in ("-", "zygote")
ZYGOTE = MODE == "zygote"
# Variables a program reads while it runs, never while Python starts: they may differ per request.
RUNTIME_ONLY_ENV = {"TERM", "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "COLUMNS", "LINES", "DG_PDB_NONCE", "PAGER", "GIT_PAGER", "PS1"}
MAX_LISTED = 20000
GROUP_MODULES = {
    # What the scoring launcher (core's pytest-launcher-source.ts) imports before the repository is
    # on sys.path; then pytest's default plugins (see default_plugin_modules).
    "pytest": ["json", "os", "shutil", "sys", "pytest", "_pytest", "pluggy", "_pytest.runner", "_pytest.reports",
               "_pytest.main", "_pytest.python", "_pytest.terminal", "_pytest.config"],
    # What tool-pdb's driver (dg_pdb.py) and pdb's main import before the program starts.
    "pdb": ["base64", "zlib", "bdb", "inspect", "io", "json", "linecache", "os", "pdb", "runpy", "cmd", "code", "glob"],
}


def read_comm():
    try:
        with open("/proc/self/comm") as handle:
            return handle.read().strip()
    except OSError:
        return None


COMM = read_comm()


def inside(path, workdir, real=None):
    if not path or not os.path.isabs(path):
        return False
    if real is None:
        real = os.path.realpath(path)
    return real == workdir or real.startswith(workdir + os.sep)


# The real paths of sys.path_importer_cache's keys (the server's import directories), resolved here
# once for every child's run_program (~0.6 ms of lstat calls each time otherwise). A key whose
# resolution changed (a symlink on its way replaced) changed a preloaded file's or a sys.path
# entry's stat too, which the stale check sees before the fork.
REAL_KEYS = {}


def resolve_cache_keys():
    for key in list(sys.path_importer_cache):
        if key not in REAL_KEYS and key and os.path.isabs(key):
            REAL_KEYS[key] = os.path.realpath(key)


def locate(name):
    """The spec the import system would find for a top-level module (nothing is executed)."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, None)
        except Exception:
            continue
        if spec is not None:
            return spec
    return None


def from_workdir(spec):
    paths = [spec.origin] if spec.origin else []
    return any(inside(path, WORKDIR) for path in paths + list(spec.submodule_search_locations or []))


def default_plugin_modules():
    """pytest's default plugins (imported by get_config, before pytest installs its assertion rewriter).

    Not the ``pytest11`` entry-point plugins: a cold pytest imports them after it installed the
    rewriter, which rewrites the modules of every distribution with such an entry point (and any module
    the repository's ``python_files`` matches); a preloaded one would be neither rewritten nor silent
    (PytestAssertRewriteWarning: module already imported)."""
    try:
        from _pytest.config import default_plugins
    except Exception:
        return []
    return ["_pytest." + name for name in default_plugins]


def blocks_plugins(args):
    """Whether pytest's arguments block a plugin (`-p no:NAME`, `-pno:NAME`), as consider_preparse reads
    them: a cold run then never imports that default plugin (nor stepwise, for cacheprovider)."""
    for index, word in enumerate(args):
        if word == "-p":
            value = args[index + 1] if index + 1 < len(args) else ""
        elif word.startswith("-p"):
            value = word[2:]
        else:
            continue
        if value.startswith("no:"):
            return True
    return False


def import_group(group):
    """Import one group; returns a problem (why a child must not rely on it) or None."""
    for top in set(name.split(".")[0] for name in GROUP_MODULES[group]):
        if top not in sys.modules:
            spec = locate(top)
            if spec is not None and from_workdir(spec):
                return "%s comes from the working copy" % top
    errors = []
    names = list(GROUP_MODULES[group])
    plugins_listed = group != "pytest"
    index = 0
    while index < len(names):
        try:
            __import__(names[index])
        except Exception as error:
            errors.append("%s: %s: %s" % (names[index], type(error).__name__, error))
        index += 1
        if index == len(names) and not plugins_listed and not errors:
            # Listed only once pytest imported.
            plugins_listed = True
            names += default_plugin_modules()
    return "; ".join(errors) or None


def run_captured(action):
    """Run action() with the standard output and error going to a memory file; return its value and
    the first 200 characters it printed (None when it printed nothing)."""
    capture = os.memfd_create("fork-server-capture")
    saved = [os.dup(1), os.dup(2)]
    for fd in (1, 2):
        os.dup2(capture, fd)
    try:
        value = action()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
    finally:
        for fd, original in zip((1, 2), saved):
            os.dup2(original, fd)
            os.close(original)
    printed = None
    if os.fstat(capture).st_size > 0:
        os.lseek(capture, 0, 0)
        printed = os.read(capture, 200).decode("utf-8", "replace")
    os.close(capture)
    return value, printed


def preload():
    """Import the groups in order, output captured: a cold run would show what an import prints."""
    loaded, problems = {}, {}
    for group in GROUP_ORDER:
        before = set(sys.modules)
        problem, printed = run_captured(lambda: import_group(group))
        loaded[group] = set(sys.modules) - before
        if problem is None and printed is not None:
            problem = "importing it prints %r" % printed
        if problem is not None:
            problems[group] = problem
    return loaded, problems


def private_modules():
    """ctypes with libc (and, from Python 3.10, fcntl and termios), for the server's own use and its
    children's set-up. They are then taken out of sys.modules: a group that imports one gets its own,
    and a child has them without importing them again (~2 ms for ctypes) nor leaving them in its
    sys.modules. Before 3.10 fcntl and termios are single-phase extension modules, whose second import
    would share the hidden copy's functions: a PTY child imports them itself (set_controlling_tty)."""
    before = set(sys.modules)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
    except Exception:
        ctypes = libc = None
    fcntl = termios = None
    if sys.version_info >= (3, 10):
        import fcntl
        import termios

    for name in set(sys.modules) - before:
        del sys.modules[name]
    return ctypes, libc, fcntl, termios


def prctl(option, value):
    libc = CTYPES_LIBC
    if libc is not None:
        libc.prctl(option, value, 0, 0, 0)


def harden():
    """Before the first import of a group: closed to the sandbox user's other processes from the start.

    Imports take a while, and a ptrace-able server (a host whose Yama ptrace_scope is 0) would let a
    process of the agent's attach to it and own every later child.
    """
    # Gone with the helper (whose long-lived spawner thread started us). It may die before this takes
    # effect: main() checks that our parent is still the helper.
    prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    # Named so that the agent's `pkill python` spares it (a child takes the interpreter's name back);
    # before the next step, which makes /proc/self/comm root's.
    if COMM is not None:
        try:
            with open("/proc/self/comm", "w") as handle:
                handle.write("dg-fork-server")
        except OSError:
            pass
    prctl(4, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/PID/mem, environ or fd for the sandbox user


def stat_fields(path):
    """The fields of a /proc stat file (a process's or a thread's) from the state on (stat(5) numbers
    them from 3), None when it is gone."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    end = data.rfind(b")")
    return data[end + 2:].split() if end >= 0 else None


def process_layout():
    """The fields of /proc/self/stat and the auxiliary vector show_process needs: the same in every
    child (a fork copies the address space), so read once, here, before harden(): a non-dumpable
    process's /proc/self files belong to root, which the sandbox user cannot read."""
    fields = stat_fields("/proc/self/stat")
    if fields is None:
        return None
    try:
        with open("/proc/self/auxv", "rb") as handle:
            auxv = handle.read()
    except OSError:
        return None
    field = lambda number: int(fields[number - 3])
    return dict(start_code=field(26), end_code=field(27), start_data=field(45), end_data=field(46),
                start_brk=field(47), start_stack=field(28), auxv=auxv)


CTYPES, CTYPES_LIBC, FCNTL, TERMIOS = private_modules()
IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)


def process_attributes(pid):
    """What a process of the sandbox user can change in another of its processes, non-dumpable or
    not, and a program inherits: resource limits (prlimit), nice, scheduling policy, CPU affinity,
    I/O priority. None when it cannot be read (the process is gone)."""
    try:
        with open("/proc/%d/limits" % pid, "rb") as handle:
            limits = handle.read()
        ioprio = None
        if IOPRIO_GET is not None and CTYPES_LIBC is not None:
            ioprio = CTYPES_LIBC.syscall(IOPRIO_GET, 1, pid)  # IOPRIO_WHO_PROCESS
        return (limits, os.getpriority(os.PRIO_PROCESS, pid), os.sched_getscheduler(pid), sorted(os.sched_getaffinity(pid)), ioprio)
    except OSError:
        return None


# As the helper started us (as it starts a cold command): a standby or the server itself that the
# agent changed since (same uid: no ptrace needed) would hand its change to the next run.
START_ATTRIBUTES = process_attributes(SERVER_PID)
PROCESS_LAYOUT = process_layout()
harden()
# '' (the working directory) was taken off sys.path at the very start, as the launcher and the pdb
# driver do before their own imports: nothing of the repository can stand in for what is preloaded.
GROUPS, PROBLEMS = preload()


def warm_inspect():
    """Fill inspect's file-to-module map for what the server imported, once.

    The first traceback pytest formats (a failing test, i.e. most evaluations) makes inspect.getmodule
    walk every loaded module and resolve its file: ~10 ms per run, paid again in every child. The map
    is a cache that inspect checks against each module's current __file__, so a child that inherits it
    finds what a cold run finds (modules a child dropped map to names it no longer has, as in a cold
    run that never loaded them).
    """
    inspect = sys.modules.get("inspect")
    if inspect is None:
        return
    try:
        inspect.getmodule(warm_inspect.__code__, "<debug-gym-fork-server>")
    except Exception:
        pass


warm_inspect()
# Everything imported so far is the server's, shared by every child: out of the collector's way, so
# a child's collections (and the final one) never walk it, nor copy its pages by touching them.
__import__("gc").collect()
__import__("gc").freeze()


def prepare_pytest_config():
    """pytest's configuration as ``_pytest.config.get_config(None, None)`` builds it before it reads
    anything: a plugin manager with pytest's hooks, the default plugins registered, their options
    declared (~4 ms of every pytest.main, all of it independent of the working copy, the arguments and
    the cwd). A child whose program starts with pytest.main gets it (hand_over_pytest_config).

    Built after gc.freeze, so a child's collector sees it as it sees a cold run's. Not built where it
    could differ from a child's own: pytest's tracing on (PYTEST_DEBUG writes to stderr), a pytest
    whose get_config is not the one known (6 to 9), shell completion on (_ARGCOMPLETE: pytest 9 then
    imports argcomplete from wherever the child's sys.path finds it). Output or an error while building
    it makes the pytest group a problem, as output while importing does (a child would have shown it)."""
    if "pytest" not in GROUPS or "pytest" in PROBLEMS or os.environ.get("PYTEST_DEBUG") or os.environ.get("_ARGCOMPLETE"):
        return None
    try:
        major = int(sys.modules["pytest"].__version__.split(".")[0])
    except Exception:
        return None
    if not 6 <= major <= 9:
        return None
    before = set(sys.modules)

    def build():
        try:
            config = sys.modules["_pytest.config"].get_config(None, None)
            params = config.invocation_params
            return (config if params == type(params)(args=(), plugins=None, dir=type(params.dir).cwd()) else None), None
        except BaseException as error:  # SystemExit too: pytest 9's _argcomplete exits when it is imported wrong
            return None, "building its configuration failed: %s: %s" % (type(error).__name__, error)

    (config, problem), printed = run_captured(build)
    if problem is None and printed is not None:
        config, problem = None, "building its configuration prints %r" % printed
    # What get_config imported (a cold run imports it there): kept by the children that get the
    # configuration, forgotten by the others (a pdb child shows its prompt before get_config runs).
    CONFIG_MODULES.update(set(sys.modules) - before)
    if problem is not None:
        PROBLEMS["pytest"] = problem
    return config


CONFIG_MODULES = set()
PYTEST_CONFIG = prepare_pytest_config()


def gets_pytest_config(uses):
    """Whether a child of these groups is handed PYTEST_CONFIG (see hand_over_pytest_config)."""
    return PYTEST_CONFIG is not None and list(uses) == ["pytest"]


def module_files():
    files = []
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            files.append(path)
    return files


def stat_key(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


class Server(object):
    def __init__(self, spawn_env):
        # What the shell wrapper and Python itself added to the environment the helper gave (PWD,
        # SHLVL, _, LC_CTYPE...): a cold command gets the same, with the cwd-valued ones at its cwd.
        self.added = dict((key, value) for key, value in START_ENV.items() if spawn_env.get(key) != value)
        self.removed = [key for key in spawn_env if key not in START_ENV]
        self.given_env = dict(spawn_env)
        self.spawn_env = dict((key, value) for key, value in spawn_env.items() if key not in RUNTIME_ONLY_ENV)
        self.unsafe = None
        for path in module_files():
            if inside(path, WORKDIR):
                self.unsafe = "the preloaded module %s is in the working copy" % path
                break
        base_tops = set(name.split(".")[0] for name in BASE_MODULES)
        self.top_names = dict((group, set(name.split(".")[0] for name in modules) - base_tops) for group, modules in GROUPS.items())
        if "pytest" in self.top_names:
            self.top_names["pytest"] |= set(name.split(".")[0] for name in CONFIG_MODULES) - base_tops
        self.signature = self.take_signature()
        self.children = {}
        self.plans = {}
        self.exit_after = False
        self.program = None  # what check() read of the request's program, for compile_program
        self.standbys = None  # Standbys, made by serve()
        self.born = set()  # a zygote's servers
        self.zygote = None  # in a zygote: why it cannot fork servers, or None

    @staticmethod
    def take_signature():
        """What a cold interpreter would read again at start: preloaded files, sys.path entries, .pth files."""
        import site

        paths = set(module_files())
        dirs = [entry for entry in BASE_PATH if entry]
        user_site = getattr(site, "USER_SITE", None)
        if user_site:
            dirs.append(user_site)
        for entry in dirs:
            paths.add(entry)
            try:
                for name in os.listdir(entry):
                    if name.endswith(".pth"):
                        paths.add(os.path.join(entry, name))
            except OSError:
                pass
        return dict((path, stat_key(path)) for path in paths)

    def stale(self):
        for path, key in self.signature.items():
            if stat_key(path) != key:
                return path
        return None

    # -- requests ---------------------------------------------------------------------------------

    def check(self, request):
        """Why a forked child would not behave like the cold command, or None."""
        if self.unsafe:
            return self.unsafe
        argv = request.get("argv") or []
        if not argv or (argv[0].startswith("-") and argv[0] not in ("-c", "-m")) or (argv[0] in ("-c", "-m") and len(argv) < 2):
            return "only `python SCRIPT`, `python -c PROGRAM` and `python -m MODULE` are forked (interpreter options are not)"
        uses = list(request.get("uses") or [])
        if "pytest" in uses and blocks_plugins(argv[2:] if argv[0] in ("-c", "-m") else argv[1:]):
            return "`-p no:NAME` keeps pytest from importing default plugins the fork server has imported"
        if uses != GROUP_ORDER[:len(uses)]:
            return "the modules of %s were not preloaded (the fork server has %s)" % (", ".join(uses), ", ".join(GROUP_ORDER) or "none")
        for group in uses:
            if group in PROBLEMS:
                return "the %s modules cannot be preloaded: %s" % (group, PROBLEMS[group])
        env = request.get("env") or {}
        for key in set(env) | set(self.spawn_env):
            if key not in RUNTIME_ONLY_ENV and env.get(key) != self.spawn_env.get(key):
                return "the environment differs from the fork server's (%s)" % key
        changed = self.stale()
        if changed:
            self.exit_after = True
            return "a preloaded file changed on disk (%s)" % changed
        if START_ATTRIBUTES is not None and process_attributes(SERVER_PID) != START_ATTRIBUTES:
            self.exit_after = True
            return "the fork server's resource limits, priority or CPU affinity were changed since it started (a new server takes over)"
        names = set().union(*[self.top_names.get(group, set()) for group in uses])
        cwd = request.get("cwd") or "/"
        self.program = program_source(argv, cwd)
        if not argv[0].startswith("-"):
            if self.program is None:
                return "the script is not a regular file of at most %d bytes the fork server can read" % MAX_SCRIPT_BYTES
            source = self.program[1]
            if b"PK\x05\x06" in source:
                return "the script may be a zip archive (the interpreter runs those through zipimport)"
            if argv[0].endswith((".pyc", ".pyo")) or source[2:4] == b"\r\n":
                return "the script may be compiled bytecode (the interpreter runs a .pyc as such)"
            if b"\0" in source or not decodes(source):
                return "the script has a null byte or is not UTF-8 (the interpreter's file reader differs from compile())"
        places = [cwd]
        if not argv[0].startswith("-"):
            places.append(os.path.dirname(os.path.realpath(os.path.join(cwd, argv[0]))))
        for place in places:
            shadow = self.shadowing(place, names)
            if shadow:
                return shadow
        return None

    def drop_plan(self, uses):
        """What a child using these groups forgets (see forget_modules), worked out once per set of groups."""
        key = (tuple(uses), len(sys.modules))
        plan = self.plans.get(key)
        if plan is None:
            keep = set(CONFIG_MODULES) if gets_pytest_config(uses) else set()
            for group in uses:
                keep |= GROUPS.get(group, set())
            names = sorted(set(sys.modules) - BASE_MODULES - keep, key=len, reverse=True)
            plan = self.plans[key] = [(name,) + tuple(name.rpartition(".")[::2]) for name in names]
        return plan

    @staticmethod
    def shadowing(directory, names):
        count = 0
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    count += 1
                    if count > MAX_LISTED:
                        return "%s has more than %d entries" % (directory, MAX_LISTED)
                    if entry.name.split(".")[0] in names:
                        return "%s would shadow a preloaded module" % os.path.join(directory, entry.name)
        except OSError as error:
            return "cannot list %s (%s)" % (directory, error.strerror)
        return None

    def spawn(self, request, fds):
        # No try/finally or with-block may enclose the fork: the child must not run the server's.
        problem = self.check(request)
        if problem:
            return {"refused": problem}
        compile_program(self.program)
        program_key = self.program[0] if self.program is not None else None
        self.program = None
        uses = request.get("uses") or []
        if self.standbys is not None:
            pid = self.standbys.hand(uses, request, fds, program_key)
            if pid is not None:
                self.children[pid] = True
                return {"pid": pid, "standby": True}
        plan = self.drop_plan(uses)
        resolve_cache_keys()
        pid = os.fork()
        if pid == 0:
            try:
                child_main(self, request, fds, plan)  # leaves through os._exit
            except BaseException as error:  # the child could not even start
                child_failed(error, 2)
        self.children[pid] = True
        return {"pid": pid}


def child_failed(error, *fds):
    """A child that could not even start its program: says why on the first of fds it can write to, exits 120."""
    try:
        text = ("debug-gym fork server: %s: %s\n" % (type(error).__name__, error)).encode()
        for fd in fds:
            try:
                os.write(fd, text)
                break
            except OSError:
                pass
    finally:
        os._exit(120)


# -- programs compiled once -----------------------------------------------------------------------

# Code objects of the `-c` programs and scripts children ran, by source, compiled here so that every
# later child skips the compile (the scoring launcher: ~1.5 ms). Same compile() call as a child's, from
# this module (which must keep having no __future__ imports: compile() inherits its caller's).
COMPILED = {}
MAX_COMPILED = 16
MAX_SCRIPT_BYTES = 1 << 20  # a larger script runs cold
# Compiled here only up to this size: CPython's compile time grows faster than linearly with some
# sources (many small functions), and the server answers nothing while it compiles. The programs
# debug-gym forks (the scoring launcher, the pdb driver) are ~13 KB.
MAX_COMPILED_BYTES = 32 << 10
CodeType = type((lambda: None).__code__)


def program_source(argv, cwd):
    """(key, source, filename) of what a child would compile for argv, or None: a module, a program
    or a script that is not a regular file of at most MAX_SCRIPT_BYTES the server can read (check()
    refuses that one)."""
    if argv[0] == "-c":
        return ("c", argv[1]), argv[1], "<string>"
    if argv[0] == "-m":
        return None
    try:
        # Not blocking on a FIFO the agent put there; only regular files are read.
        fd = os.open(os.path.join(cwd, argv[0]), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (st.st_mode & 0o170000 == 0o100000 and st.st_size <= MAX_SCRIPT_BYTES):
            return None
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_SCRIPT_BYTES:  # grew while read
                return None
            chunks.append(chunk)
        source = b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)
    return ("script", source), source, argv[0]


def plain_source(source):
    """ASCII, without a coding declaration: compiling it imports nothing (a non-ASCII identifier
    imports unicodedata, a declared encoding its codec, and both leave caches behind)."""
    if isinstance(source, str):
        return source.isascii()
    head = source.split(b"\n", 2)[:2]
    return source.isascii() and not any(b"coding" in line and line.lstrip().startswith(b"#") for line in head)


def decodes(source):
    """Whether a script without a coding declaration is valid UTF-8 (what the file reader requires)."""
    head = source.split(b"\n", 2)[:2]
    if any(b"coding" in line and line.lstrip().startswith(b"#") for line in head):
        return True
    try:
        source.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def compile_program(found):
    """Compile the child's program into COMPILED unless it is there. Only small plain sources
    (plain_source, MAX_COMPILED_BYTES); not cached either when compiling fails, warns (SyntaxWarning,
    DeprecationWarning) or imports anything: the child compiles it itself and shows what a cold run
    shows."""
    if found is None or found[0] in COMPILED:
        return
    key, source, filename = found
    if len(source) > MAX_COMPILED_BYTES or not plain_source(source):
        return
    modules = len(sys.modules)
    # A warning turned into an error for this compile: put first into the list the warnings machinery
    # reads (in place: the C side keeps a reference to it), taken out after. No output, no registry.
    warnings = sys.modules.get("warnings")
    filters = warnings.filters if warnings is not None else sys.modules["_warnings"].filters
    raising = ("error", None, Warning, None, 0)
    filters.insert(0, raising)
    try:
        code = compile(source, filename, "exec")
    except Exception:
        return
    finally:
        for index, item in enumerate(filters):
            if item is raising:
                del filters[index]
                break
    if len(sys.modules) != modules:
        return
    while len(COMPILED) >= MAX_COMPILED:
        del COMPILED[next(iter(COMPILED))]
    COMPILED[key] = code


def with_filename(code, filename):
    """The code object as compiling it under `filename` makes it (a script's path differs per run)."""
    if code.co_filename == filename:
        return code
    consts = tuple(with_filename(const, filename) if isinstance(const, CodeType) else const for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


# -- the child ------------------------------------------------------------------------------------


def child_main(server, request, fds, drop_plan):
    """Become `<python> ARGV` started fresh by the shell in CWD with ENV; never returns."""
    os.setsid()
    prepare_modules(request.get("uses") or [], drop_plan)
    become(server, request, fds)


def prepare_modules(uses, drop_plan):
    """sys.modules as the program finds it at its start: what it needs nothing of the request for."""
    forget_modules(drop_plan)
    if gets_pytest_config(uses):
        hand_over_pytest_config(PYTEST_CONFIG)


def become(server, request, fds):
    """The rest of child_main, in a session of our own (a fresh child's, or a standby's)."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    if request.get("pty"):
        set_controlling_tty()
    close_other_fds()
    prctl(4, 1)  # PR_SET_DUMPABLE: a fresh process is dumpable (the server is not)
    prctl(1, int(request.get("pdeathsig") or 0))  # PR_SET_PDEATHSIG as the cold command had it
    if COMM is not None:
        try:
            with open("/proc/self/comm", "w") as handle:
                handle.write(COMM)
        except OSError:
            pass
    _signal.set_wakeup_fd(-1)
    for signum, handler in START_SIGNALS.items():
        try:
            _signal.signal(signum, handler)
        except (OSError, ValueError, TypeError):
            pass
    cwd = request["cwd"]
    os.chdir(cwd)
    env = dict(request.get("env") or {})
    for key, value in server.added.items():
        env[key] = cwd if value == START_CWD else value
    for key in server.removed:
        env.pop(key, None)
    if START_ENV.get("PWD") == START_CWD:
        env["PWD"] = cwd  # the shell sets PWD to where it starts, whatever it inherited
    os.environ.clear()
    os.environ.update(env)
    argv = list(request["argv"])
    show_process([ORIG_ARGV0] + argv, env)
    make_stdio()
    run_program(argv, cwd)


PROCESS_AREAS = []  # the buffers /proc/self/cmdline and /proc/self/environ now point into: kept alive


def mm_map_type():
    """struct prctl_mm_map (linux/prctl.h), defined once in the server."""
    ctypes = CTYPES
    if ctypes is None:
        return None
    fields = ("start_code", "end_code", "start_data", "end_data", "start_brk", "brk", "start_stack", "arg_start", "arg_end", "env_start", "env_end")
    return type("MmMap", (ctypes.Structure,), {"_fields_": [(name, ctypes.c_uint64) for name in fields] + [
        ("auxv", ctypes.c_void_p), ("auxv_size", ctypes.c_uint32), ("exe_fd", ctypes.c_uint32)]})


MM_MAP = mm_map_type()


def show_process(argv, env):
    """Point /proc/self/cmdline and /proc/self/environ at this program's argv and environment, as an
    exec would have set them (PR_SET_MM_MAP, allowed without privileges; skipped where it is not)."""
    libc, ctypes, layout = CTYPES_LIBC, CTYPES, PROCESS_LAYOUT
    if libc is None or MM_MAP is None or layout is None:
        return False
    try:
        auxv = layout["auxv"]

        def area(items):
            data = b"".join(item.encode("utf-8", "surrogateescape") + b"\0" for item in items)
            buffer = ctypes.create_string_buffer(data, len(data))
            PROCESS_AREAS.append(buffer)
            start = ctypes.addressof(buffer)
            return start, start + len(data)

        auxv_buffer = ctypes.create_string_buffer(auxv, len(auxv))
        PROCESS_AREAS.append(auxv_buffer)
        libc.sbrk.restype = ctypes.c_void_p
        arg_start, arg_end = area(argv)
        env_start, env_end = area("%s=%s" % item for item in env.items())
        mm = MM_MAP(layout["start_code"], layout["end_code"], layout["start_data"], layout["end_data"], layout["start_brk"],
                    libc.sbrk(0) or layout["start_brk"], layout["start_stack"], arg_start, arg_end, env_start, env_end, ctypes.addressof(auxv_buffer), len(auxv), 0xFFFFFFFF)
        ulong = ctypes.c_ulong
        return libc.prctl(35, ulong(14), ulong(ctypes.addressof(mm)), ulong(ctypes.sizeof(mm)), ulong(0)) == 0  # PR_SET_MM, PR_SET_MM_MAP
    except Exception:
        return False


def close_other_fds(first=3):
    libc, ctypes = CTYPES_LIBC, CTYPES
    if libc is not None:
        try:
            # close_range(first, ~0U, 0): syscall 436 on every architecture; ENOSYS before Linux 5.9,
            # EPERM under a seccomp profile without it: then the listing below.
            if libc.syscall(ctypes.c_long(436), ctypes.c_uint(first), ctypes.c_uint(0xFFFFFFFF), ctypes.c_uint(0)) == 0:
                return
        except Exception:
            pass
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        names = [str(fd) for fd in range(first, 1024)]
    for name in names:
        fd = int(name)
        if fd >= first:
            try:
                os.close(fd)
            except OSError:
                pass


def set_controlling_tty():
    """Make the PTY on stdin this session's controlling terminal (TIOCSCTTY)."""
    if FCNTL is not None:
        FCNTL.ioctl(0, TERMIOS.TIOCSCTTY, 0)
        return
    before = set(sys.modules)
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    for name in set(sys.modules) - before:  # not in the drop plan, which the server worked out
        FORGOTTEN.append(sys.modules.pop(name))


FORGOTTEN = []  # a child's forgotten modules, kept alive: tearing them down would only copy the server's pages


def forget_modules(plan):
    """Modules the cold program would not have imported yet: gone, as if never imported.

    `plan` lists (name, parent, attribute), submodules before their packages."""
    modules = sys.modules
    for name, parent, child in plan:
        FORGOTTEN.append(modules.pop(name, None))
        holder = modules.get(parent) if parent else None
        if holder is not None and getattr(holder, child, None) is not None:
            try:
                delattr(holder, child)
            except AttributeError:
                pass


def hand_over_pytest_config(config):
    """The program's first get_config (pytest.main's first step) returns the server's prepared
    configuration with this child's invocation parameters; get_config is pytest's own again from that
    call on. Arguments with a -p option get pytest's own at once (get_config applies `-p no:NAME`
    before it registers the default plugins), as does anything unexpected (pytest's own then raises
    what it raises). Only for `uses == ['pytest']`, whose programs call pytest.main before anything
    else of pytest (the pdb driver stops at a prompt first)."""
    module = sys.modules["_pytest.config"]
    original = module.get_config

    def get_config(args=None, plugins=None):
        module.get_config = original
        if args is None or (isinstance(args, (list, tuple)) and not any(isinstance(arg, str) and arg.startswith("-p") for arg in args)):
            try:
                params = config.invocation_params
                config.invocation_params = type(params)(args=args or (), plugins=plugins, dir=type(params.dir).cwd())
                # pytest 9 builds its argparse parser in Config(), named after sys.argv[0] then: the
                # server's. Named by argparse itself, here, as the child's own build would name it.
                optparser = getattr(config._parser, "optparser", None)
                if optparser is not None:
                    optparser.prog = sys.modules["argparse"].ArgumentParser(add_help=False).prog
                return config
            except Exception:
                pass
        return original(args, plugins)

    module.get_config = get_config


def make_stdio():
    import io

    streams = []
    for fd, (name, write) in enumerate((("<stdin>", False), ("<stdout>", True), ("<stderr>", True))):
        encoding, errors = STDIO[fd]
        buffering = 0 if (write and not BUFFERED_STDIO) else -1
        buf = io.open(fd, "wb" if write else "rb", buffering, None, None, None, False)
        raw = buf.raw if buffering else buf
        raw.name = name
        tty = raw.isatty()
        line = BUFFERED_STDIO and (tty or (fd == 2 and sys.version_info >= (3, 9)))
        stream = io.TextIOWrapper(buf, encoding, errors, "\n", line, not BUFFERED_STDIO)
        stream.mode = "w" if write else "r"
        streams.append(stream)
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


def run_program(argv, cwd):
    """Run the program as the interpreter would; imports nothing a fresh interpreter would not have."""
    # Imported for finalize; out of sys.modules again unless the program's groups had imported them.
    had = [name for name in ("atexit", "gc") if name in sys.modules]
    import atexit
    import gc

    for name in ("atexit", "gc"):
        if name not in had:
            sys.modules.pop(name, None)
    main = type(sys)("__main__")
    if MAIN_HAS_ANNOTATIONS:
        main.__annotations__ = {}
    main.__builtins__ = sys.modules["builtins"]
    main.__loader__ = BUILTIN_IMPORTER
    sys.modules["__main__"] = main
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = [ORIG_ARGV0] + argv
    if argv[0] == "-c":
        sys.argv = ["-c"] + argv[2:]
        sys.path[:] = [""] + BASE_PATH
    elif argv[0] == "-m":
        sys.argv = ["-m"] + argv[2:]
        sys.path[:] = [os.getcwd()] + BASE_PATH
    else:
        sys.argv = list(argv)
        sys.path[:] = [os.path.dirname(os.path.realpath(argv[0]))] + BASE_PATH
    for key in list(sys.path_importer_cache):
        if not key or key == cwd or inside(key, cwd, REAL_KEYS.get(key)):
            del sys.path_importer_cache[key]
    for finder in sys.meta_path:  # importlib.invalidate_caches(), without importing importlib
        if hasattr(finder, "invalidate_caches"):
            finder.invalidate_caches()
    inherited = set(sys.modules) - {"__main__"}
    code, interrupted, script = 0, False, None
    try:
        if argv[0] == "-m":
            import runpy

            runpy._run_module_as_main(argv[1], True)
        else:
            if argv[0] == "-c":
                key, source, filename = ("c", argv[1]), argv[1], "<string>"
            else:
                filename = script_path(argv[0])
                source = read_script(filename)
                if source is None:
                    finalize(2, False, inherited, atexit, gc)
                script = start_script(main, filename)
                key = ("script", source)
            # Compiled here, not in a helper: the traceback of a SyntaxError shows no frame of ours.
            program = COMPILED.get(key)
            if program is not None:
                try:
                    program = with_filename(program, filename)
                except RecursionError:  # nested deeper than this helper can walk: compile it after all
                    program = None
            if program is None:
                program = compile(source, filename, "exec")
            exec(program, main.__dict__)
    except SystemExit as exiting:
        script = None  # Python exits at once, with __file__ still set
        code = system_exit_code(exiting)
    except BaseException as error:
        tb = error.__traceback__.tb_next if error.__traceback__ is not None else None
        error.__traceback__ = tb  # the default excepthook prints the exception's own traceback
        sys.last_type, sys.last_value, sys.last_traceback = type(error), error, tb
        if sys.version_info >= (3, 12):
            sys.last_exc = error
        sys.excepthook(type(error), error, tb)
        code, interrupted = 1, isinstance(error, KeyboardInterrupt)
    if script is not None:  # after the excepthook, as _PyRun_SimpleFileObject does
        script.pop("__file__", None)
        script.pop("__cached__", None)
    finalize(code, interrupted, inherited, atexit, gc)


def system_exit_code(exiting):
    """What Python's handle_system_exit makes of a SystemExit: None is 0, an int itself, else printed and 1."""
    value = exiting.code
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    try:
        sys.stderr.write(str(value) + "\n")
        sys.stderr.flush()
    except Exception:
        pass
    return 1


def finalize(code, interrupted, inherited, atexit, gc):
    """Py_FinalizeEx for a fork: wait for threads, atexit, tear down what the program imported (its
    modules' objects get their __del__, unflushed files their flush), collect, flush the standard
    streams (120 when that fails), then leave. The inherited modules are not torn down: they hold
    nothing of the program, and clearing them would copy every page of the server's heap."""
    try:
        threading = sys.modules.get("threading")
        if threading is not None and hasattr(threading, "_shutdown"):
            threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()  # prints what a handler raises, as at a normal exit
    except BaseException:
        pass
    imported = [module for name, module in list(sys.modules.items()) if name not in inherited and module is not None]
    for module in reversed(imported):
        clear_module(module)
    del gc.callbacks[:]  # CPython's shutdown collection does not call them (_PyGC_CollectNoFail)
    gc.collect()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            if stream is sys.stdout:
                code = 120
    if interrupted:
        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
        os.kill(os.getpid(), _signal.SIGINT)
    os._exit(code & 0xFF if isinstance(code, int) else 1)


def clear_module(module):
    """CPython's _PyModule_ClearDict: names with one leading underscore first, then the rest."""
    namespace = getattr(module, "__dict__", None)
    if not isinstance(namespace, dict):
        return
    try:
        for key in list(namespace):
            if isinstance(key, str) and key.startswith("_") and not key.startswith("__"):
                namespace[key] = None
        for key in list(namespace):
            if key != "__builtins__":
                namespace[key] = None
    except BaseException:
        pass


def script_path(path):
    """The script's name as the interpreter runs it: from 3.9, made absolute by _Py_abspath (cwd, a
    separator, the name: nothing normalized, `//x.py` in `/`; bpo-20443). sys.argv[0] keeps the name."""
    if sys.version_info >= (3, 9) and not os.path.isabs(path):
        return os.getcwd() + os.sep + path
    return path


def read_script(path):
    """The script's bytes, or None after the message the interpreter prints when it cannot open it
    (it then exits with 2). check() refuses a script the server cannot read; this is for one removed
    since."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as error:
        try:
            sys.stderr.write("%s: can't open file %r: [Errno %d] %s\n" % (ORIG_ARGV0, path, error.errno, error.strerror))
            sys.stderr.flush()
        except Exception:
            pass
        return None


def start_script(main, path):
    """__main__ as _PyRun_SimpleFileObject sets it up before it compiles the script; its globals."""
    SourceFileLoader = sys.modules["_frozen_importlib_external"].SourceFileLoader
    globals_ = main.__dict__
    globals_["__file__"] = path
    globals_["__cached__"] = None
    globals_["__loader__"] = SourceFileLoader("__main__", path)
    return globals_


# -- standbys: children forked ahead of their request ------------------------------------------------

MADV_POPULATE_WRITE = 23  # Linux 5.14; EINVAL before: the standby then only saves the fork and set-up
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
PREFAULT_CHUNK = 64 * PAGE  # between two chunks a standby looks whether its request came
BUSY_CHECK_CHUNKS = 16  # and every so many chunks (4 MiB) whether every core is busy (twice in a row: it stops copying)
STANDBY_IDLE = 0.02  # seconds without a request or an exit, no child running, before a standby is made
# A standby does ahead, on spare CPU, what its run would do anyway. With every core busy (many sandboxes
# at once) it would only take CPU from them, and one never used is waste: it waits for a free core,
# looking again after twice as long each time (up to MAX_BUSY_WAIT); once this sandbox has had no request
# and no exit for MAX_STANDBY_DEFER it is made all the same, but copies no page while every core is busy
# (see prefault).
MAX_BUSY_WAIT = 0.32
MAX_STANDBY_DEFER = 1.0
MAX_STANDBY_DEATHS = 32  # standbys that died unused (the agent kills them) before none are made


class Standbys(object):
    """At most one child per set of groups, forked while the sandbox is idle, that has already done
    what a child does before it knows its request: the fork, its own session, the modules it forgets,
    and the copies of the server's pages a run writes (a fresh child takes ~3000 copy-on-write faults,
    ~10 ms, inside the test run). A request for that set of groups is handed to it over a private
    socket (the same message and descriptors the server got); it then goes on exactly as a fresh
    child does (become), so what the program sees is the same.

    A standby is non-dumpable (as the server) until its request, holds only its own socket, and dies
    with the server (PR_SET_PDEATHSIG). One the agent stopped, killed or changed (process_attributes)
    is not used: the request is forked fresh. Made with a core free (machine_busy), or after waiting
    for one up to MAX_STANDBY_DEFER, and copies pages only while a core is free: on a saturated machine
    work done ahead only takes CPU from the runs."""

    def __init__(self, server, socket, select, json, time):
        self.server = server
        self.socket, self.select, self.json = socket, select, json
        # Made for the sets of groups requested so far, from the start those of the scoring run, a pdb
        # start and the rewrite's syntax check (no group).
        self.wanted = [tuple(GROUP_ORDER[:n]) for n in range(len(GROUP_ORDER), -1, -1)
                       if not any(group in PROBLEMS for group in GROUP_ORDER[:n])]
        self.ready = {}  # key -> (pid, socket, len(sys.modules) when forked, the programs COMPILED had)
        self.dying = set()
        self.deaths = 0
        self.clock = time.monotonic
        self.last = self.clock()
        self.busy_wait = STANDBY_IDLE  # how long refill waits before it looks again at a busy machine
        self.deferred = None  # since when a standby waits for a free core
        self.cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

    def pids(self):
        return [entry[0] for entry in self.ready.values()] + list(self.dying)

    def activity(self):
        self.last = self.clock()
        self.busy_wait = STANDBY_IDLE
        self.deferred = None  # a standby is made regardless only after MAX_STANDBY_DEFER of quiet in this sandbox

    def missing(self):
        if self.deaths >= MAX_STANDBY_DEATHS:
            return None
        for key in self.wanted:
            if key not in self.ready:
                return key
        return None

    def wait_time(self):
        if self.missing() is None:
            return None
        return max(0.0, self.last + self.busy_wait - self.clock())

    def refill(self):
        key = self.missing()
        if key is None or self.clock() < self.last + self.busy_wait:
            return
        self.last = self.clock()
        budget = [MAX_LOOKED_AT]
        if any(process_state(pid) in ("R", "D") for pid in self.pids()) or any(running(pid, budget) for pid in list(self.server.children)):
            self.busy_wait = STANDBY_IDLE
            return  # a run (or a standby's copying) is using the CPU: not now
        if machine_busy(self.cores):
            self.deferred = self.deferred if self.deferred is not None else self.last
            if self.last - self.deferred < MAX_STANDBY_DEFER:
                self.busy_wait = min(self.busy_wait * 2, MAX_BUSY_WAIT)
                return
        self.busy_wait = STANDBY_IDLE
        self.deferred = None
        self.start(key)

    def start(self, key):
        socket = self.socket
        try:
            mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        except OSError:
            self.deaths += 1
            return
        plan = self.server.drop_plan(list(key))
        resolve_cache_keys()
        modules = len(sys.modules)
        try:
            pid = os.fork()
        except OSError:  # the sandbox's process limit: no standby now
            mine.close()
            theirs.close()
            self.deaths += 1
            return
        if pid == 0:
            fds = error = None
            try:
                mine.close()
                request, fds, error = standby_main(self.server, key, theirs, plan)
                if error is None and fds is not None:
                    become(self.server, request, fds)  # leaves through os._exit
            except BaseException as failure:
                error = failure
            if fds is None:
                os._exit(0)  # never handed a run
            # Handed a run that could not start: as a fresh child that could not, on the run's stderr
            # (fd 2 once become() moved the descriptors there).
            child_failed(error, fds[2], 2)
        theirs.close()
        self.ready[key] = (pid, mine, modules, set(COMPILED))

    def hand(self, uses, request, fds, program_key):
        """The standby's pid once it has the request, or None (then the server forks as usual). A
        program compiled since the standby was forked goes with the request (marshal), so the
        standby skips the compile as a fresh child would."""
        key = tuple(uses)
        if key not in self.wanted:
            self.wanted.append(key)
        entry = self.ready.pop(key, None)
        if entry is None:
            return None
        pid, conn, modules, compiled = entry
        handed = False
        usable = standby_intact(pid) and process_attributes(pid) == START_ATTRIBUTES
        if modules == len(sys.modules) and usable:
            code = b""
            if program_key in COMPILED and program_key not in compiled:
                code = marshalled(program_key, COMPILED[program_key])
            # One message, sent without blocking: a standby that does not read (stopped since the
            # check) must not hold the server up. JSON never holds a NUL byte.
            message = self.json.dumps(request).encode("utf-8") + b"\0" + code
            rights = b"".join(fd.to_bytes(4, sys.byteorder) for fd in fds)
            try:
                conn.sendmsg([message], [(self.socket.SOL_SOCKET, self.socket.SCM_RIGHTS, rights)], self.socket.MSG_DONTWAIT)
                handed = True
            except OSError:
                pass
        conn.close()
        if handed:
            return pid
        if not usable:
            self.deaths += 1  # stopped, gone or changed: the agent's doing
        self.dying.add(pid)
        try:
            os.kill(pid, _signal.SIGKILL)
        except OSError:
            pass
        return None

    def lost(self):
        """No child is left to wait for (ECHILD): the standbys are gone too."""
        self.dying.clear()
        for pid, conn, _, _ in self.ready.values():
            conn.close()
        self.ready.clear()

    def died(self, pid):
        self.dying.discard(pid)
        for key, entry in list(self.ready.items()):
            if entry[0] == pid:
                entry[1].close()
                del self.ready[key]
                self.deaths += 1


def marshalled(key, code):
    """marshal.dumps((key, code)) when loading it gives back the same code, else b"" (the standby
    then compiles the program itself). A frozenset constant is rebuilt by marshal in its iteration
    order, which can iterate in another order than the one compile() made (`{8, 32, 15, 63}`)."""
    marshal = sys.modules.get("marshal")
    if marshal is None:
        return b""
    try:
        data = marshal.dumps((key, code))
        if same_constants(code, marshal.loads(data)[1]):
            return data
    except (ValueError, OverflowError, MemoryError, RecursionError, TypeError):
        pass
    return b""


def same_constants(a, b):
    """Equal constants, frozensets iterating in the same order, down through nested code and tuples."""
    if type(a) is not type(b):
        return False
    if isinstance(a, CodeType):
        return a == b and same_constants(a.co_consts, b.co_consts)
    if isinstance(a, (tuple, frozenset)):
        return len(a) == len(b) and all(same_constants(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN


MAX_LOOKED_AT = 256  # threads and processes running() reads before it calls a run idle


def running(pid, budget):
    """Whether a run is on a CPU: the process, one of its threads or a descendant in state R or D
    (a run waiting for its own busy subprocess sleeps itself)."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return False
    for tid in tids:
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        base = "/proc/%d/task/%s/" % (pid, tid)
        if stat_state(base + "stat") in ("R", "D"):
            return True
        try:
            with open(base + "children", "rb") as handle:  # Linux >= 4.2 with CONFIG_PROC_CHILDREN
                kids = handle.read().split()
        except OSError:
            continue
        for kid in kids:
            if running(int(kid), budget):
                return True
    return False


def machine_busy(cores):
    """Every core has something to run besides us (/proc/loadavg's runnable count, machine-wide)."""
    try:
        with open("/proc/loadavg", "rb") as handle:
            runnable = int(handle.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return False
    return runnable - 1 >= cores


def process_state(pid):
    """The scheduler state letter of a process (/proc/PID/stat), None when it is gone."""
    return stat_state("/proc/%d/stat" % pid)


# task flags (/proc/PID/stat field 9): set once a fatal signal was taken, before the process shows as a zombie
PF_EXITING, PF_SIGNALED = 0x4, 0x400


def standby_intact(pid):
    """Whether a standby can still take a run: not stopped, dying or gone, and no signal pending. A
    signal the agent sent a moment ago may not have been acted on yet (on a busy machine the standby
    has not run since): it is still pending then (a standby ignores the signals it could be sent
    harmlessly, and ignored signals are not queued). Read in the order the kernel moves through:
    pending, then taken (flags), then stopped or exited (state)."""
    try:
        with open("/proc/%d/status" % pid, "rb") as handle:
            status = handle.read()
    except OSError:
        return False
    for line in status.splitlines():
        if (line.startswith(b"SigPnd:") or line.startswith(b"ShdPnd:")) and int(line.split()[1], 16):
            return False
    fields = stat_fields("/proc/%d/stat" % pid)
    return fields is not None and fields[0] not in (b"T", b"t", b"Z", b"X") and not int(fields[6]) & (PF_EXITING | PF_SIGNALED)


def stat_state(path):
    """The state letter of a /proc stat file, None when it is gone."""
    fields = stat_fields(path)
    return fields[0].decode("ascii", "replace") if fields else None


def standby_main(server, key, conn, plan):
    """Set up, copy the pages a run writes, wait: (request, fds, None), or (None, None, None) when
    the server let us go, or (None, fds, error) when the request came but could not be read."""
    standbys = server.standbys
    socket, poll, loads = standbys.socket, standbys.select.select, standbys.json.loads
    _signal.set_wakeup_fd(-1)
    _signal.signal(_signal.SIGINT, _signal.SIG_IGN)  # idle: an agent's `kill -INT` is not for us (become() restores it)
    prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: gone with the server (a fork does not inherit it)
    if os.getppid() != SERVER_PID:
        return None, None, None
    os.setsid()
    fd = conn.detach()
    if fd != 3:
        os.dup2(fd, 3)
    close_other_fds(4)  # the control socket above all
    conn = socket.socket(fileno=3)
    prepare_modules(list(key), plan)
    if key:  # a run without a group (the syntax check) writes few of the server's pages: not worth ~20 MB
        prefault(conn, poll, standbys.cores)
    message, ancillary, _, _ = conn.recvmsg(1 << 24, socket.CMSG_SPACE(3 * 4))
    fds = received_fds(ancillary, socket)
    if not message or len(fds) != 3:
        return None, None, None
    try:
        head, _, code = message.partition(b"\0")
        request = loads(head.decode("utf-8"))
        if code:
            program_key, program = sys.modules["marshal"].loads(code)
            COMPILED[program_key] = program
        return request, fds, None
    except BaseException as error:
        return None, fds, error


def prefault(conn, poll, cores):
    """Copy now the server's pages a run would copy on its first write: every page resident in the
    server's writable private mappings (mincore), with MADV_POPULATE_WRITE, a chunk at a time, until
    the request comes, or until every core is busy: it copies more pages than a run writes (~5000
    against ~2900), a gain on an idle core, a loss on a saturated machine (8 local episodes at once
    on 2 cores: 0.37 against 0.34 s of CPU per episode)."""
    libc, ctypes = CTYPES_LIBC, CTYPES
    if libc is None:
        return
    try:
        with open("/proc/self/maps", "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return
    chunks = busy = 0
    if machine_busy(cores):
        return
    for line in lines:
        fields = line.split()
        if len(fields) < 2 or fields[1][:2] != b"rw" or fields[1][3:4] != b"p":
            continue
        start, end = (int(part, 16) for part in fields[0].split(b"-"))
        count = (end - start) // PAGE
        vector = (ctypes.c_ubyte * count)()
        if libc.mincore(ctypes.c_void_p(start), ctypes.c_size_t(end - start), vector) != 0:
            continue
        resident = bytes(vector)
        index = resident.find(b"\x01")
        while index >= 0:
            stop = resident.find(b"\x00", index)
            stop = count if stop < 0 else stop
            for offset in range(index * PAGE, stop * PAGE, PREFAULT_CHUNK):
                size = min(PREFAULT_CHUNK, stop * PAGE - offset)
                if libc.madvise(ctypes.c_void_p(start + offset), ctypes.c_size_t(size), MADV_POPULATE_WRITE) != 0:
                    if ctypes.get_errno() == 22:  # EINVAL: a kernel without it
                        return
                    break
                if poll([conn], [], [], 0)[0]:
                    return
                chunks += 1
                if chunks % BUSY_CHECK_CHUNKS == 0:
                    busy = busy + 1 if machine_busy(cores) else 0
                    if busy >= 2:  # twice in a row: not a passing process
                        return
            index = resident.find(b"\x01", stop) if stop < count else -1


# -- the local backend's zygote -------------------------------------------------------------------
# A server started in a directory of its own (mode "zygote") that forks, for each local sandbox of the
# same interpreter and environment, the fork server that sandbox would have started: the child takes
# the sandbox's working directory, environment and control socket and serves as a server started
# there (its imports are the zygote's, done once). Asked over its own control socket, by its helper
# (which runs those servers too): nothing else can reach it. What would make the child differ from a
# started server is refused.

BORN_OF = None  # in a server the zygote forked: the zygote's pid


def zygote_problem(server):
    """Why this server cannot be a zygote, or None."""
    if server.unsafe:
        return server.unsafe
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            return "sys.path has a relative entry (%r): a server started elsewhere would resolve it there" % entry
    # What each server the zygote forks does to show its own environment (stray processes are
    # found by a marker in /proc/PID/environ): done once here, on the zygote itself, to know it works.
    if not show_process(zygote_argv(sys.argv[1:]), START_ENV):
        return "PR_SET_MM_MAP is not available (a forked server could not show its own environment)"
    return None


def zygote_argv(args):
    """The command line of this interpreter with these arguments after the program (`-c BOOT`)."""
    return list(ARGV_PREFIX) + list(args)


def zygote_request(server, request, fds, sockets, pipes):
    """A request {"server": {"workdir", "env", "marker", "standbys", "helper"}} with the new server's
    control socket: {"pid"} (the server then talks to the helper over that socket) or {"refused"}."""
    if server.zygote is not None:
        return {"refused": server.zygote}
    order = request.get("server")
    if not isinstance(order, dict):
        return {"refused": "a zygote only forks fork servers: the request has no \"server\" object"}
    try:
        problem, start_env = zygote_check(server, order, fds)
    except Exception as error:  # a request of the wrong shape
        problem = "bad request: %s: %s" % (type(error).__name__, error)
    if problem:
        return {"refused": problem}
    return zygote_fork(server, order, start_env, fds[0], sockets, pipes)


def zygote_check(server, request, fds):
    """(why a server forked for this request would differ from one started for it, None), or (None,
    the environment a server started there would have found at its start)."""
    if len(fds) != 1:
        return "expected 1 descriptor, got %d" % len(fds), None
    stale = server.stale()
    if stale:
        server.exit_after = True
        return "a preloaded file changed on disk (%s)" % stale, None
    if process_attributes(SERVER_PID) != START_ATTRIBUTES:
        server.exit_after = True
        return "the zygote's resource limits, priority or CPU affinity were changed since it started (a new one takes over)", None
    workdir, env, marker = request.get("workdir"), request.get("env"), request.get("marker")
    if not isinstance(workdir, str) or not os.path.isabs(workdir) or os.path.realpath(workdir) != workdir or not os.path.isdir(workdir):
        return "the working directory is not an absolute real path of a directory", None
    given = server.given_env
    if not isinstance(env, dict) or set(env) != set(given):
        return "the environment's variables differ from the zygote's", None
    changed = [key for key in env if env[key] != given[key]]
    if any(key != marker for key in changed) or not all(isinstance(value, str) for value in env.values()):
        return "the environment differs from the zygote's (%s)" % ", ".join(sorted(changed)[:5]), None
    if changed and not (isinstance(marker, str) and marker.startswith("DEBUG_GYM_")):
        return "only a DEBUG_GYM_ marker may differ from the zygote's environment", None
    start_env = {}
    for key, value in START_ENV.items():
        if key in changed:
            if value != given[key]:
                return "the shell or Python changed %s" % key, None
            value = env[key]
        elif value == START_CWD:
            value = workdir
        elif START_CWD in value:
            return "%s names the zygote's directory" % key, None
        start_env[key] = value
    return None, start_env


def zygote_fork(server, request, start_env, fd, sockets, pipes):
    # No try/finally or with-block may enclose the fork: the child must not run the zygote's.
    try:
        pid = os.fork()
    except OSError as error:
        return {"refused": "cannot fork: %s" % error}
    if pid == 0:
        try:
            become_server(request, start_env, fd, sockets, pipes)
        except BaseException:
            pass
        os._exit(121)
    server.born.add(pid)
    return {"pid": pid}


def become_server(request, start_env, fd, sockets, pipes):
    """In the zygote's child: the server the sandbox's helper would have started in its working
    directory, with its environment and control socket. Never returns."""
    global SERVER_PID, CTL_FD, WORKDIR, STANDBYS_ON, ZYGOTE, START_ENV, START_CWD, BORN_OF
    _signal.set_wakeup_fd(-1)
    for sock in sockets:  # the zygote's control socket: the helper's end answers the zygote only
        try:
            os.close(sock.detach())
        except OSError:
            pass
    for pipe in pipes:
        os.close(pipe)
    os.setsid()  # as the helper starts a server: a session of its own
    # No parent-death signal: the zygote may go (a preloaded file changed, the agent killed it) while
    # this server runs another sandbox's commands. It leaves when its helper closes its control socket
    # (the helper dies with the driver); a stopped one is found by its marker at close, or by gc.
    zygote = SERVER_PID
    zygote_cwd = START_CWD
    workdir = request["workdir"]
    os.chdir(workdir)
    SERVER_PID, CTL_FD, WORKDIR, BORN_OF = os.getpid(), fd, workdir, zygote
    STANDBYS_ON, ZYGOTE = request.get("standbys") is not False, False
    START_ENV, START_CWD = start_env, os.getcwd()
    os.environ.clear()
    os.environ.update(start_env)
    for key in list(sys.path_importer_cache):  # the zygote's working directory, as '' resolved there
        if key and (key == zygote_cwd or inside(key, zygote_cwd, REAL_KEYS.get(key))):
            del sys.path_importer_cache[key]
    args = [str(fd), workdir, ",".join(GROUP_ORDER) or "-", str(request.get("helper") or 0), "standbys" if STANDBYS_ON else "-"]
    sys.argv[1:] = args
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = zygote_argv(args)
    if not show_process(zygote_argv(args), start_env):
        os._exit(121)
    serve()
    os._exit(0)


# -- the server loop ------------------------------------------------------------------------------


def decode_status(status):
    if os.WIFSIGNALED(status):
        return -os.WTERMSIG(status)
    if os.WIFEXITED(status):
        return os.WEXITSTATUS(status)
    return None


def serve():
    import json
    import select
    import socket
    import time

    ctl = socket.socket(fileno=CTL_FD)
    message = ctl.recv(1 << 22)
    if not message:
        return  # the helper gave up on us before we started
    server = Server(json.loads(message.decode("utf-8")))
    if STANDBYS_ON and not server.unsafe and START_ATTRIBUTES is not None:  # unreadable: no way to vouch for a standby
        server.standbys = Standbys(server, socket, select, json, time)
    wake_r, wake_w = os.pipe()
    for fd in (wake_r, wake_w):
        os.set_blocking(fd, False)
        os.set_inheritable(fd, False)
    _signal.set_wakeup_fd(wake_w)
    _signal.signal(_signal.SIGCHLD, lambda signum, frame: None)
    ready = {"ready": True, "pid": os.getpid(), "python": "%d.%d.%d" % sys.version_info[:3],
             "groups": GROUP_ORDER, "problems": PROBLEMS, "unsafe": server.unsafe}
    if BORN_OF is not None:
        ready["zygote"] = BORN_OF
    if ZYGOTE:
        server.zygote = zygote_problem(server)
        ready["zygote"] = server.zygote or True
    ctl.sendall(json.dumps(ready).encode("utf-8"))
    fd_space = socket.CMSG_SPACE(3 * 4)
    waited = [ctl, wake_r]
    while True:
        standbys = server.standbys
        try:
            readable = select.select(waited, [], [], standbys.wait_time() if standbys is not None else None)[0]
        except InterruptedError:
            continue
        if standbys is not None:
            if readable:
                standbys.activity()
            else:
                standbys.refill()
        if wake_r in readable:
            try:
                while os.read(wake_r, 4096):
                    pass
            except (BlockingIOError, InterruptedError):
                pass
        reap(server, ctl, json)
        if ctl not in readable:
            continue
        message, ancillary, _, _ = ctl.recvmsg(1 << 22, fd_space)
        if not message:
            return
        fds = received_fds(ancillary, socket)
        request = json.loads(message.decode("utf-8"))
        if ZYGOTE:
            answer = zygote_request(server, request, fds, (ctl,), (wake_r, wake_w))
        elif request.get("op") == "standbys":
            # The helper spares exactly these when it pauses or reaps the sandbox's processes: a
            # child of ours is not a standby because of its parent (clone(CLONE_PARENT) makes one).
            answer = {"standbys": server.standbys.pids() if server.standbys is not None else []}
        elif len(fds) != 3:
            answer = {"refused": "expected 3 descriptors, got %d" % len(fds)}
        else:
            answer = guarded_spawn(server, request, fds)
        for fd in fds:
            os.close(fd)
        answer["id"] = request.get("id")
        ctl.sendall(json.dumps(answer).encode("utf-8"))
        if server.exit_after:
            return
        del request


def received_fds(ancillary, socket):
    """The descriptors a recvmsg's SCM_RIGHTS data carried."""
    fds = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += [int.from_bytes(data[i:i + 4], sys.byteorder) for i in range(0, len(data) - len(data) % 4, 4)]
    return fds


def guarded_spawn(server, request, fds):
    try:
        return server.spawn(request, fds)
    except Exception as error:
        if os.getpid() != SERVER_PID:
            os._exit(120)
        return {"refused": "%s: %s" % (type(error).__name__, error)}


def reap(server, ctl, json):
    """Report the children that exited; a standby that died before its request is only forgotten."""
    while server.children or server.born or (server.standbys is not None and server.standbys.pids()):
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            server.children.clear()
            server.born.clear()
            if server.standbys is not None:
                server.standbys.lost()
            return
        if pid == 0:
            return
        if server.children.pop(pid, None) is None:
            server.born.discard(pid)
            if server.standbys is not None:
                server.standbys.died(pid)
            continue
        ctl.sendall(json.dumps({"exit": pid, "code": decode_status(status)}).encode("utf-8"))


def main():
    # The helper may have died during Python's start-up, before harden() set PR_SET_PDEATHSIG: then we
    # are someone else's child already.
    if len(sys.argv) > 4 and os.getppid() != int(sys.argv[4]) and not os.path.exists("/proc/%s" % sys.argv[4]):
        return
    serve()


main()
