import { FORK_CLIENT_SOURCE } from './helper-fork-source.js';

/**
 * The helper program that runs inside every Docker sandbox (one long-lived process per container).
 *
 * The container's PID 1 starts it on the container's own stdin/stdout, which the client attached to
 * before the start (`Tty: false`); a helper that a command killed is replaced through one
 * `docker exec`. Either way it runs as `python -I -S -c BOOTSTRAP <n>`: the bootstrap reads `<n>`
 * bytes of this source from stdin and
 * executes it, so nothing has to be copied into the container first and `ps` shows a short command
 * line. After that, stdin carries requests and stdout carries responses, one JSON object per line:
 *
 *   -> {"id": 7, "op": "run", "cmd": "pytest -x", "timeout": 30.0, "cap": 1048576, ...}
 *   <- {"id": 7, "ok": true, "exit": 1, "out": "<base64>", "dropped": 0, "timedOut": false}
 *   <- {"id": 8, "ok": false, "errno": "ENOENT", "error": "No such file or directory: '/x'"}
 *
 * Requests are answered out of order: `run` executes on its own thread, file operations are served
 * inline by the reader loop (they take microseconds). Interactive sessions run in PTYs the helper
 * opens itself (no `docker exec` per session); their output and exit arrive as event lines that
 * carry the session id the client chose instead of a request id:
 *
 *   -> {"id": 9, "op": "pty_open", "sid": 9, "cmd": "python -m pdb x.py", "rows": 50, "cols": 200, ...}
 *   <- {"id": 9, "ok": true, "pid": 42}
 *   <- {"ev": "data", "sid": 9, "data": "<base64>"}
 *   -> {"id": 10, "op": "pty_write", "sid": 9, "data": "<base64>"}
 *   <- {"ev": "exit", "sid": 9, "code": 0}
 *
 * The first line the helper writes is
 * `{"id": 0, "ok": true, "ready": true, ...}`. When stdin reaches EOF (the owning Node process is
 * gone), the helper asks PID 1 to exit, so the container stops and is auto-removed even when the
 * owner was SIGKILLed.
 *
 * Keep it compatible with Python >= 3.8, standard library only, and free of backticks and dollar-brace
 * sequences (it lives in a template literal).
 */
export const HELPER_SOURCE = String.raw`
import base64, errno, fcntl, json, os, queue, select, shutil, signal, stat, struct, subprocess, sys, termios, threading, time

PROTO_IN = sys.stdin.buffer
PROTO_OUT = sys.stdout.buffer
WRITE_LOCK = threading.Lock()
SHELL = "/bin/bash" if os.access("/bin/bash", os.X_OK) else "/bin/sh"
BASE_ENV = {k: v for k, v in os.environ.items() if not k.startswith("DEBUG_GYM_HELPER_")}
EXIT_GRACE = 0.1     # seconds to keep reading after the shell exited while background jobs hold the pipe
KILL_GRACE = 1.0     # seconds to keep reading after a timeout kill
READ_CHUNK = 65536
READDIR_MAX = 1000000     # entries a readdir answers at most (the answer is one line held in memory)
REAP_SECONDS = 10.0       # how long one clean-up after a command may keep killing (a fork loop races it)


def parse_run_as():
    # "uid:gid" from the launch data: commands, sessions and file operations run as that user.
    value = os.environ.get("DEBUG_GYM_HELPER_RUN_AS", "")
    if not value:
        return None
    uid, gid = value.split(":")
    return int(uid), int(gid)


RUN_AS = parse_run_as()
# On this host without a sandbox (the local backend, for its fork server only): no PID 1 to stop,
# no /etc/hosts to fix, no leftovers killed (local commands keep running until close()).
HOST_MODE = os.environ.get("DEBUG_GYM_HELPER_HOST") == "1"
# Only a root helper switches users; a helper that already is the sandbox user (a jail) just runs.
SWITCH_USER = RUN_AS is not None and os.getuid() == 0 and RUN_AS[0] != 0
LIBC = None


def load_libc():
    global LIBC
    try:
        import ctypes
        LIBC = ctypes.CDLL(None, use_errno=True)
    except Exception:
        LIBC = None


def set_process_name():
    # 'pkill python' inside the sandbox should not take the helper down with it.
    if LIBC is not None:
        LIBC.prctl(15, b"debug-gym-helpr", 0, 0, 0)  # PR_SET_NAME


def become_subreaper():
    # Orphans of the commands (double forks, setsid) become the helper's children, so
    # reap_leftovers() finds them in the helper's process tree and can wait for them.
    if LIBC is not None:
        LIBC.prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER


class SandboxFiles(object):
    # File operations run with the sandbox user's file-system identity (setfsuid is per thread and
    # drops the file capabilities), so a symlink the agent planted cannot make the root helper
    # read or write what the agent itself may not, and what the helper creates is the agent's.
    def __enter__(self):
        if SWITCH_USER:
            LIBC.setfsgid(RUN_AS[1])
            LIBC.setfsuid(RUN_AS[0])

    def __exit__(self, *exc):
        if SWITCH_USER:
            LIBC.setfsuid(0)
            LIBC.setfsgid(0)
        return False


def setup_user():
    # Runs once, before any request: no supplementary groups for the helper, and a HOME the
    # sandbox user can write.
    if RUN_AS is None:
        return
    home = os.environ.get("DEBUG_GYM_HELPER_HOME") or "/tmp/home"
    if SWITCH_USER:
        if LIBC is None:
            raise SystemExit("cannot switch to the sandbox user without ctypes")
        os.setgroups([])
        LIBC.setfsuid(RUN_AS[0])
        switched = LIBC.setfsuid(RUN_AS[0]) == RUN_AS[0]
        LIBC.setfsuid(0)
        if not switched:
            raise SystemExit("setfsuid is not permitted (the helper lacks CAP_SETUID)")
    try:
        os.makedirs(home, exist_ok=True)
        if SWITCH_USER:
            os.lchown(home, RUN_AS[0], RUN_AS[1])
    except OSError:
        pass
    BASE_ENV["HOME"] = home
    BASE_ENV.setdefault("USER", "sandbox")
    BASE_ENV.setdefault("LOGNAME", "sandbox")


def drop_privileges():
    # In the child, before exec: the sandbox user with no groups, which clears every capability.
    if SWITCH_USER:
        os.setgroups([])
        os.setgid(RUN_AS[1])
        os.setuid(RUN_AS[0])


def user_options(root):
    # Popen arguments that start a command as the sandbox user: done in C where Python has them
    # (3.9+), which costs less per command than a Python preexec_fn.
    if root or not SWITCH_USER:
        return {}
    if sys.version_info >= (3, 9):
        return {"user": RUN_AS[0], "group": RUN_AS[1], "extra_groups": []}
    return {"preexec_fn": drop_privileges}


def send(obj):
    line = json.dumps(obj, separators=(",", ":")).encode("utf-8") + b"\n"
    with WRITE_LOCK:
        PROTO_OUT.write(line)
        PROTO_OUT.flush()


def b64(data):
    return base64.b64encode(data).decode("ascii")


def file_type(mode):
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def op_ping(req):
    return {"python": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid(), "shell": SHELL}


def open_regular(path, flags):
    # Non-blocking open, then a check of what was opened: a FIFO swapped in after a stat() must
    # not hang the helper (a FIFO without a writer or reader would block the open forever).
    fd = os.open(path, flags | os.O_NONBLOCK, 0o666)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise OSError(errno.EISDIR, "Is a directory", path)
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "Not a regular file", path)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb" if flags == os.O_RDONLY else "wb")


def op_read(req):
    # "length": one piece of the file from "offset" ("more" when the piece is full), so no reply is one
    # huge JSON line for the driver to parse at once; "max" bounds the whole file.
    path = req["path"]
    limit = req.get("max")
    offset = req.get("offset", 0)
    length = req.get("length")
    with open_regular(path, os.O_RDONLY) as handle:
        size = os.fstat(handle.fileno()).st_size
        if limit is not None and size > limit:
            return {"tooLarge": size}
        if offset:
            handle.seek(offset)
        want = -1 if length is None else length
        if limit is not None:
            want = limit + 1 - offset if want < 0 else min(want, limit + 1 - offset)
        data = handle.read(want)
        if limit is not None and offset + len(data) > limit:
            return {"tooLarge": max(size, offset + len(data))}
        return {"data": b64(data), "more": length is not None and len(data) == length, "size": size}


def open_written(path):
    # An existing file is truncated; a new one is created with O_EXCL, so never through a dangling
    # symlink (it may lead out of the working copy).
    try:
        return open_regular(path, os.O_WRONLY | os.O_TRUNC)
    except FileNotFoundError:
        try:
            return open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        except FileExistsError:
            raise OSError(errno.ENOENT, "Dangling symlink: its target does not exist", path)


def op_write(req):
    path = req["path"]
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    data = base64.b64decode(req.get("data") or "")
    try:
        handle = open_written(path)
    except PermissionError:
        # A read-only file of the sandbox user's (e.g. copied in with mode 0444) is written as root
        # would write it: its mode is kept. Its owner could chmod it anyway; others' files stay refused.
        st = os.stat(path)
        owner = RUN_AS[0] if SWITCH_USER else os.getuid()
        if not stat.S_ISREG(st.st_mode) or st.st_uid != owner:
            raise
        os.chmod(path, st.st_mode | stat.S_IWUSR)
        try:
            handle = open_written(path)
        finally:
            os.chmod(path, stat.S_IMODE(st.st_mode))
    with handle:
        handle.write(data)
    return {}


def op_readdir(req):
    entries = []
    with os.scandir(req["path"]) as it:
        for entry in it:
            try:
                st = entry.stat(follow_symlinks=False)
                kind = file_type(st.st_mode)
                executable = kind == "file" and bool(st.st_mode & 0o111)
            except OSError:
                kind, executable = "other", False
            entries.append([entry.name, kind, executable])
            if len(entries) > READDIR_MAX:
                raise OSError(errno.E2BIG, "The directory has more than %d entries; list it with a command (e.g. ls | head) instead" % READDIR_MAX)
    return {"entries": entries}


def op_stat(req):
    try:
        st = os.stat(req["path"]) if req.get("follow") else os.lstat(req["path"])
    except (FileNotFoundError, NotADirectoryError, OSError) as error:
        if isinstance(error, (FileNotFoundError, NotADirectoryError)) or error.errno == errno.ELOOP:
            return {"stat": None}
        raise
    kind = file_type(st.st_mode)
    return {"stat": {"type": kind, "size": st.st_size, "executable": kind == "file" and bool(st.st_mode & 0o111)}}


def op_realpath(req):
    path = req["path"]
    os.stat(path)  # raises ENOENT / ENOTDIR / ELOOP when missing or dangling
    return {"path": os.path.realpath(path)}


def op_remove(req):
    path = req["path"]
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return {}
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(path)
    elif req.get("keepRoot"):
        # The working copy itself stays; only its contents go.
        for entry in os.listdir(path):
            child = os.path.join(path, entry)
            if os.path.isdir(child) and not os.path.islink(child):
                shutil.rmtree(child)
            else:
                os.unlink(child)
    else:
        shutil.rmtree(path)
    return {}


def op_mkdir(req):
    os.makedirs(req["path"], exist_ok=True)
    return {}


def op_own(req):
    # Give the sandbox user a tree the image baked in (e.g. /testbed), without following symlinks.
    if not SWITCH_USER:
        return {}
    uid, gid = RUN_AS
    for root, dirs, files in os.walk(req["path"]):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            st = os.lstat(name)
            if st.st_uid != uid or st.st_gid != gid:
                os.lchown(name, uid, gid)
    return {}


UNTARS = {}


def untar_into(path, reader, box):
    import tarfile
    try:
        with SandboxFiles():
            with tarfile.open(fileobj=reader, mode="r|") as archive:
                if hasattr(tarfile, "fully_trusted_filter"):
                    archive.extractall(path, filter="fully_trusted")
                else:
                    archive.extractall(path)
    except BaseException as error:
        box.append(error)
    finally:
        while reader.read(READ_CHUNK):  # drain, so the writer never blocks or breaks the pipe
            pass
        reader.close()


def op_untar_open(req):
    # A big archive arrives in pieces (untar_chunk) and is extracted while it streams.
    r, w = os.pipe()
    box = []
    thread = threading.Thread(target=untar_into, args=(req["path"], os.fdopen(r, "rb"), box), daemon=True)
    thread.start()
    UNTARS[req["tid"]] = (w, thread, box)
    return {}


def op_untar_chunk(req):
    write_all(UNTARS[req["tid"]][0], base64.b64decode(req.get("data") or ""))
    return {}


def op_untar_close(req):
    w, thread, box = UNTARS.pop(req["tid"])
    os.close(w)
    thread.join()
    if box:
        raise box[0]
    return {}


TARS = {}
TAR_CHUNK = 8 * 1024 * 1024


def tar_from(path, writer, box):
    # The working copy as a tar stream (what env.fork() copies into a new sandbox), read with the
    # sandbox user's permissions, symlinks kept as symlinks.
    import tarfile
    try:
        with SandboxFiles():
            with tarfile.open(fileobj=writer, mode="w|") as archive:
                archive.add(path, arcname=".", recursive=True)
    except BaseException as error:
        box.append(error)
    finally:
        try:
            writer.close()
        except OSError:
            pass


def op_tar_open(req):
    r, w = os.pipe()
    box = []
    thread = threading.Thread(target=tar_from, args=(req["path"], os.fdopen(w, "wb"), box), daemon=True)
    thread.start()
    TARS[req["tid"]] = (r, thread, box)
    return {}


def op_tar_read(req):
    r, thread, box = TARS[req["tid"]]
    parts, size = [], 0
    while size < TAR_CHUNK:
        chunk = os.read(r, min(READ_CHUNK * 16, TAR_CHUNK - size))
        if not chunk:
            break
        parts.append(chunk)
        size += len(chunk)
    done = size < TAR_CHUNK
    if done:
        TARS.pop(req["tid"], None)
        os.close(r)
        thread.join()
        if box:
            raise box[0]
    return {"data": b64(b"".join(parts)), "done": done}


def op_untar(req):
    # An archive the client built from a host directory (relative names, no devices): extracted
    # with modes, mtimes, symlinks and ownership as they are in it.
    import io, tarfile
    with tarfile.open(fileobj=io.BytesIO(base64.b64decode(req.get("data") or "")), mode="r:") as archive:
        if hasattr(tarfile, "fully_trusted_filter"):
            archive.extractall(req["path"], filter="fully_trusted")
        else:
            archive.extractall(req["path"])
    return {}


def op_kill(req):
    pid = int(req["pid"])
    sig = int(req.get("signal", signal.SIGKILL))
    try:
        if req.get("group"):
            os.killpg(pid, sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        return {"found": False}
    return {"found": True}


def open_pidfd(pid):
    # A descriptor that becomes readable when the process exits (Linux >= 5.3, Python >= 3.9);
    # None means: poll instead.
    if hasattr(os, "pidfd_open"):
        try:
            return os.pidfd_open(pid)
        except OSError:
            pass
    return None


LIVE = set()                 # pids of running commands and open sessions: their trees are spared
PROCS_LOCK = threading.Lock()  # held while a child is started and while leftovers are killed


def scan_processes():
    procs = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/" + name + "/stat", "rb") as handle:
                data = handle.read()
            uid = os.stat("/proc/" + name).st_uid
        except OSError:
            continue
        fields = data[data.rindex(b")") + 2:].split()
        procs[int(name)] = (int(fields[1]), fields[0], uid)
    return procs


def tree_of(roots, children):
    seen, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid not in seen:
            seen.add(pid)
            todo.extend(children.get(pid, ()))
    return seen


def leftovers(procs, servers=frozenset(), standbys=frozenset()):
    me = os.getpid()
    children = {}
    for pid, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    # A fork server is spared with the runs it started (in LIVE) and the standbys it says it holds,
    # not with whatever else has it as parent.
    spared = tree_of(set(LIVE) - set(servers), children) | set(servers) | set(standbys)
    ancestors, pid = set(), me
    while pid in procs and pid not in ancestors:
        ancestors.add(pid)
        pid = procs[pid][0]
    mine = tree_of([me], children)
    found = []
    for pid, (ppid, state, uid) in procs.items():
        if pid in spared or pid in ancestors or pid == 1 or (state == b"Z" and ppid != me):
            continue
        if pid in mine or (SWITCH_USER and uid == RUN_AS[0]):
            found.append((pid, ppid, state))
    return found


def reap_leftovers():
    # What a finished command left behind (background jobs, daemons, a fork loop) is killed, as
    # the bubblewrap backend does, so the next step starts clean and can fork.
    if HOST_MODE:
        return
    me = os.getpid()
    deadline = time.monotonic() + REAP_SECONDS
    rounds = 0
    while time.monotonic() < deadline:
        servers, standbys = debug_gym_children(scan_processes())
        with PROCS_LOCK:
            found = leftovers(scan_processes(), servers, standbys)
            for pid, ppid, state in found:
                if state != b"Z":
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                if ppid == me:
                    try:
                        os.waitpid(pid, os.WNOHANG)
                    except OSError:
                        pass
        if not found:
            return
        rounds += 1
        if rounds > 3:
            time.sleep(0.002)


# -- pausing the agent's processes for a scoring run -----------------------------------------------
# While the tests that decide a reward run, nothing the agent left behind may run: a thread in its
# pdb session, a background loop of its shell, a process it double-forked. op_pause stops (SIGSTOP,
# which no process can catch or ignore) every process of the sandbox but the helper, its ancestors
# and the fork servers with their standbys (debug-gym's own, which never ran the agent's code), and
# waits until every thread of each shows stopped; op_resume continues them. A process that does not
# stop in time (uninterruptible sleep) is killed. What the agent had stopped itself stays stopped.

PAUSED = {}          # pid -> (start time, stopped before the pause): what op_pause stopped
PAUSE_SECONDS = 5.0  # how long op_pause waits for every thread to stop before killing what has not


def fork_servers():
    with FORKS_LOCK:
        return [FORK] + list(FORKS.values())


def debug_gym_children(procs):
    """(the fork servers' pids, the standbys they hold): children of a server that it forked ahead of
    a request, by the server's own word, never by their parent pid alone (clone(CLONE_PARENT) gives
    any child of a server's child the server as parent)."""
    servers, standbys = set(), set()
    for server in fork_servers():
        pids = server.own_pids()
        servers |= pids
        if any(ppid in pids and pid not in LIVE for pid, (ppid, _, _) in procs.items()):
            standbys |= server.standby_pids()
    return servers, set(pid for pid in standbys if pid in procs and procs[pid][0] in servers)


def pausable(procs, servers, standbys):
    """The pids op_pause stops: every live process of the sandbox but debug-gym's own."""
    me = os.getpid()
    spared, pid = {me, 1}, procs.get(me, (0,))[0]
    while pid in procs and pid not in spared:
        spared.add(pid)
        pid = procs[pid][0]
    found = []
    for pid, (ppid, state, uid) in procs.items():
        if pid in spared or pid in servers or pid in standbys or state in (b"Z", b"X"):
            continue
        if SWITCH_USER and uid != RUN_AS[0]:
            continue
        found.append(pid)
    return found


def threads_stopped(pid):
    """Every thread of pid is stopped (or the process is gone)."""
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return True
    for tid in tids:
        fields = stat_fields(pid, tid)
        if fields is not None and fields[0] not in (b"T", b"t", b"Z", b"X"):
            return False
    return True


def op_pause(req):
    # Only in a sandbox: every backend that starts a helper there gives it a PID namespace of the
    # sandbox's own (bwrap --unshare-pid, a container, a pod), so every process it sees is the
    # sandbox's. A helper on the host (the local backend's) would see, and stop, the host's.
    if HOST_MODE:
        return {"paused": 0, "killed": 0, "supported": False}
    deadline = time.monotonic() + float(req.get("timeout") or PAUSE_SECONDS)
    killed = 0
    # Asked once: a standby made after this is stopped too (the server then forks afresh).
    servers, standbys = debug_gym_children(scan_processes())
    while True:
        waiting = []
        with PROCS_LOCK:
            procs = scan_processes()
            for pid in pausable(procs, servers, standbys):
                if pid not in PAUSED:
                    PAUSED[pid] = (start_time(pid), procs[pid][1] in (b"T", b"t"))
                elif threads_stopped(pid):
                    continue
                # New, or running again (continued by a process not stopped yet, or its tracer).
                try:
                    os.kill(pid, signal.SIGSTOP)
                    waiting.append(pid)
                except OSError:
                    PAUSED.pop(pid, None)
        if not waiting:
            break
        if time.monotonic() >= deadline:
            for pid in waiting:
                if not threads_stopped(pid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                        killed += 1
                    except OSError:
                        pass
                    PAUSED.pop(pid, None)
            break
        time.sleep(0.0005)
    return {"paused": len(PAUSED), "killed": killed}


def op_resume(req):
    resumed = 0
    with PROCS_LOCK:
        for pid, (started, stopped_before) in list(PAUSED.items()):
            if stopped_before or started is None or start_time(pid) != started:
                continue
            try:
                os.kill(pid, signal.SIGCONT)
                resumed += 1
            except OSError:
                pass
        PAUSED.clear()
    return {"resumed": resumed}


def feed_stdin(pipe, data):
    try:
        pipe.write(data)
    except OSError:
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def forked_run(req, env, data):
    """A run started by the fork server: a ForkedProcess with pipes like Popen's, or why not."""
    reason = fork_usable(req["python"])
    if reason is not None:
        return reason
    out_r, out_w = os.pipe()
    if data is not None:
        in_r, in_w = os.pipe()
    else:
        in_r, in_w = os.open(os.devnull, os.O_RDONLY), None
    try:
        with PROCS_LOCK:
            proc = fork_spawn(req["python"], env, req.get("cwd") or os.getcwd(), [in_r, out_w, out_w], False)
            if not isinstance(proc, str):
                LIVE.add(proc.pid)
    finally:
        os.close(out_w)
        os.close(in_r)
    if isinstance(proc, str):
        os.close(out_r)
        if in_w is not None:
            os.close(in_w)
        return proc
    proc.stdout = os.fdopen(out_r, "rb", 0)
    proc.stdin = os.fdopen(in_w, "wb", 0) if in_w is not None else None
    return proc


def op_run(req):
    started = time.monotonic()
    env = dict(BASE_ENV)
    env.update(req.get("env") or {})
    cap = int(req.get("cap", 1 << 20))
    timeout = req.get("timeout")
    data = req.get("input")
    proc, via, reason = None, "cold", None
    if req.get("python") and not req.get("root"):
        proc = forked_run(req, env, data)
        if isinstance(proc, str):
            proc, reason = None, proc
            if req.get("fallback") is False:
                return {"refused": reason}
        else:
            via = "fork"
    if proc is None:
        with PROCS_LOCK:
            proc = subprocess.Popen(
                [SHELL, "-c", req["cmd"]],
                stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=req.get("cwd") or None,
                env=env,
                close_fds=True,
                start_new_session=True,
                **user_options(req.get("root"))
            )
            LIVE.add(proc.pid)
    if data is not None:
        threading.Thread(target=feed_stdin, args=(proc.stdin, base64.b64decode(data)), daemon=True).start()
    fd = proc.stdout.fileno()
    pidfd = open_pidfd(proc.pid)
    deadline = started + float(timeout) if timeout else None
    chunks, kept, dropped = [], 0, 0
    exited = timed_out = False
    stop_at = None
    try:
        while True:
            now = time.monotonic()
            waits = []
            if deadline is not None and not timed_out:
                waits.append(deadline - now)
            if stop_at is not None:
                waits.append(stop_at - now)
            if not exited and pidfd is None:
                waits.append(0.05)
            wait = max(0.0, min(waits)) if waits else None
            watch = [fd] if pidfd is None or exited else [fd, pidfd]
            ready = select.select(watch, [], [], wait)[0]
            if fd in ready:
                chunk = os.read(fd, READ_CHUNK)
                if not chunk:
                    break
                room = cap - kept
                if room >= len(chunk):
                    chunks.append(chunk)
                    kept += len(chunk)
                else:
                    if room > 0:
                        chunks.append(chunk[:room])
                        kept += room
                    dropped += len(chunk) - max(room, 0)
            if not exited and pidfd is not None and pidfd in ready and isinstance(proc, ForkedProcess):
                proc.settle()
            if not exited and proc.poll() is not None:
                exited = True
                if stop_at is None:
                    stop_at = time.monotonic() + EXIT_GRACE
            now = time.monotonic()
            if deadline is not None and not timed_out and not exited and now >= deadline:
                timed_out = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except OSError:
                    pass
                stop_at = now + KILL_GRACE
            if stop_at is not None and now >= stop_at:
                break
    finally:
        proc.stdout.close()
        if pidfd is not None:
            os.close(pidfd)
        code = proc.wait()
        with PROCS_LOCK:
            LIVE.discard(proc.pid)
        reap_leftovers()
    result = {
        "exit": None if (timed_out or code < 0) else code,
        "out": b64(b"".join(chunks)),
        "dropped": dropped,
        "timedOut": timed_out,
        "ms": int((time.monotonic() - started) * 1000),
    }
    if req.get("python"):
        result["via"] = via
        if reason is not None:
            result["reason"] = reason
        if getattr(proc, "standby", False):
            result["standby"] = True
    return result


SESSIONS = {}
SESSIONS_LOCK = threading.Lock()
${FORK_CLIENT_SOURCE}


def start_session_child():
    # Runs in the child after setsid(): the PTY on stdin becomes its controlling terminal, so a
    # Ctrl-C written to the master reaches the session's foreground process group as SIGINT.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    drop_privileges()


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def pty_writer(master, inbox):
    # One writer per session: a program that stops reading its input blocks only its own writes.
    # It owns the master's descriptor and closes it when the reader is done (None), so neither
    # thread can touch a descriptor number the other closed and something else reused.
    broken = False
    while True:
        data = inbox.get()
        if data is None:
            break
        if broken:
            continue
        try:
            write_all(master, data)
        except OSError:
            broken = True
    os.close(master)


def pty_reader(sid, proc, master, inbox):
    pidfd = open_pidfd(proc.pid)
    exited = False
    stop_at = None
    try:
        while True:
            watch = [master] if pidfd is None or exited else [master, pidfd]
            wait = None if pidfd is not None and not exited else 0.05
            if stop_at is not None:
                wait = max(0.0, stop_at - time.monotonic())
            ready = select.select(watch, [], [], wait)[0]
            if master in ready:
                try:
                    chunk = os.read(master, READ_CHUNK)
                except OSError:  # EIO: every process holding the PTY is gone
                    chunk = b""
                if not chunk:
                    break
                send({"ev": "data", "sid": sid, "data": b64(chunk)})
            if not exited and pidfd is not None and pidfd in ready and isinstance(proc, ForkedProcess):
                proc.settle()
            if not exited and proc.poll() is not None:
                exited = True
                stop_at = time.monotonic() + EXIT_GRACE
            if stop_at is not None and time.monotonic() >= stop_at:
                break
    finally:
        if pidfd is not None:
            os.close(pidfd)
        with SESSIONS_LOCK:
            SESSIONS.pop(sid, None)
        inbox.put(None)  # the writer closes the master after its last write
        code = proc.wait()
        with PROCS_LOCK:
            LIVE.discard(proc.pid)
        send({"ev": "exit", "sid": sid, "code": code if code >= 0 else None})


def op_pty_open(req):
    sid = req["sid"]
    env = dict(BASE_ENV)
    env.update(req.get("env") or {})
    if SHELL.endswith("bash"):
        argv = [SHELL, "--noprofile", "--norc", "-c", req["cmd"]]
    else:
        argv = [SHELL, "-c", req["cmd"]]
    proc, via, reason = None, "cold", None
    master, slave = os.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~(termios.ECHO | termios.ECHONL)
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", int(req.get("rows", 50)), int(req.get("cols", 200)), 0, 0))
        if SWITCH_USER:
            os.fchown(slave, RUN_AS[0], RUN_AS[1])
        if req.get("python"):
            reason = fork_usable(req["python"])
            if reason is None:
                with PROCS_LOCK:
                    proc = fork_spawn(req["python"], env, req.get("cwd") or os.getcwd(), [slave, slave, slave], True)
                    if not isinstance(proc, str):
                        LIVE.add(proc.pid)
                if isinstance(proc, str):
                    proc, reason = None, proc
                else:
                    via = "fork"
            if proc is None and req.get("fallback") is False:
                os.close(master)
                return {"refused": reason}
        if proc is None:
            with PROCS_LOCK:
                proc = subprocess.Popen(
                    argv,
                    stdin=slave,
                    stdout=slave,
                    stderr=slave,
                    cwd=req.get("cwd") or None,
                    env=env,
                    close_fds=True,
                    start_new_session=True,
                    preexec_fn=start_session_child,
                )
                LIVE.add(proc.pid)
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    inbox = queue.Queue()
    with SESSIONS_LOCK:
        SESSIONS[sid] = inbox
    threading.Thread(target=pty_writer, args=(master, inbox), daemon=True).start()
    threading.Thread(target=pty_reader, args=(sid, proc, master, inbox), daemon=True).start()
    answer = {"pid": proc.pid}
    if req.get("python"):
        answer["via"] = via
        if reason is not None:
            answer["reason"] = reason
        if getattr(proc, "standby", False):
            answer["standby"] = True
    return answer


def op_pty_write(req):
    with SESSIONS_LOCK:
        inbox = SESSIONS.get(req["sid"])
    if inbox is None:
        raise OSError(errno.ESRCH, "No such session: the program has exited")
    inbox.put(base64.b64decode(req.get("data") or ""))
    return {}


OPS = {
    "ping": op_ping,
    "read": op_read,
    "write": op_write,
    "readdir": op_readdir,
    "stat": op_stat,
    "realpath": op_realpath,
    "remove": op_remove,
    "mkdir": op_mkdir,
    "kill": op_kill,
    "pause": op_pause,
    "resume": op_resume,
    "untar": op_untar,
    "untar_open": op_untar_open,
    "untar_chunk": op_untar_chunk,
    "untar_close": op_untar_close,
    "own": op_own,
    "run": op_run,
    "pty_open": op_pty_open,
    "pty_write": op_pty_write,
    "fork_start": op_fork_start,
    "fork_stop": op_fork_stop,
    "tar_open": op_tar_open,
    "tar_read": op_tar_read,
}
THREADED = {"run", "fork_start", "fork_stop", "pty_open", "tar_read"}
FILE_OPS = {"read", "write", "readdir", "stat", "realpath", "remove", "mkdir", "untar"}


def handle(req):
    rid = req.get("id")
    try:
        fn = OPS.get(req.get("op"))
        if fn is None:
            raise ValueError("unknown op %r" % (req.get("op"),))
        if req.get("op") in FILE_OPS:
            with SandboxFiles():
                result = fn(req)
        else:
            result = fn(req)
        result["id"] = rid
        result["ok"] = True
        send(result)
    except OSError as error:
        code = errno.errorcode.get(error.errno or 0, "EIO")
        send({"id": rid, "ok": False, "errno": code, "error": str(error)})
    except Exception as error:
        send({"id": rid, "ok": False, "errno": "EINTERNAL", "error": "%s: %s" % (type(error).__name__, error)})


def on_eof():
    # The owner is gone (it closed us, or died without cleaning up): stop the container. A helper
    # started over a connection that can drop and be replaced (a Kubernetes exec) only stops what
    # it runs, so the sandbox outlives the connection and a new helper can take over.
    if HOST_MODE:
        return
    if os.environ.get("DEBUG_GYM_HELPER_ON_EOF") == "exit":
        with PROCS_LOCK:
            for pid in list(LIVE):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
        reap_leftovers()
        return
    try:
        os.kill(1, signal.SIGTERM)
    except OSError:
        pass


def limit_processes():
    # A process budget for the sandbox user when no cgroup holds one (Kubernetes has no per-pod
    # pids limit in the pod spec): RLIMIT_NPROC counts the processes of the helper's uid.
    value = os.environ.get("DEBUG_GYM_HELPER_NPROC", "")
    if value:
        import resource
        resource.setrlimit(resource.RLIMIT_NPROC, (int(value), int(value)))


LOCALHOST_HOSTS = (
    "127.0.0.1\tlocalhost\n"
    "::1\tlocalhost ip6-localhost ip6-loopback\n"
    "fe00::0\tip6-localnet\n"
    "ff00::0\tip6-mcastprefix\n"
    "ff02::1\tip6-allnodes\n"
    "ff02::2\tip6-allrouters\n"
)


def ensure_localhost():
    # Without a network the engine does not manage /etc/hosts, and an image's own file may be
    # empty: add the entries Docker writes for a container without network, so 'localhost'
    # resolves. Best effort (a non-root image user cannot write it).
    try:
        with open("/etc/hosts") as handle:
            current = handle.read()
    except OSError:
        current = ""
    for line in current.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) > 1 and "localhost" in fields[1:]:
            return
    try:
        with open("/etc/hosts", "w") as handle:
            handle.write(LOCALHOST_HOSTS + current)
    except OSError:
        pass


def main():
    # Started as a background job of the container's shell, which ignores SIGINT and SIGQUIT for
    # it: put back the defaults, or no command or session would see Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    load_libc()
    set_process_name()
    if not HOST_MODE:
        become_subreaper()
        ensure_localhost()
    setup_user()
    limit_processes()
    # Ignored (children get the default back, subprocess restores it): a command that exits without
    # reading its input must not kill the helper feeding it.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    send({"id": 0, "ok": True, "ready": True, "python": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid(),
          "uid": os.getuid(), "gid": os.getgid(), "shell": SHELL,
          "runAs": list(RUN_AS) if RUN_AS is not None else None})
    while True:
        line = PROTO_IN.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line.decode("utf-8"))
        except ValueError as error:
            send({"id": None, "ok": False, "errno": "EPROTO", "error": "bad request: %s" % error})
            continue
        if req.get("op") == "exit":
            os._exit(0)
        if req.get("op") == "fork_start":
            req["launch"] = fork_server(req.get("server"), True).begin(req)
        if req.get("op") in THREADED:
            try:
                threading.Thread(target=handle, args=(req,), daemon=True).start()
            except RuntimeError as error:  # no thread left (pids limit reached)
                send({"id": req.get("id"), "ok": False, "errno": "EAGAIN", "error": "cannot start a thread: %s" % error})
        else:
            handle(req)
    on_eof()
    # Leave at once: interpreter finalization could wait on a lock a request thread still holds
    # (every answer was flushed when it was sent; the fork server dies with us).
    os._exit(0)


main()
`;

/**
 * Like HELPER_BOOTSTRAP, but the helper first makes itself non-dumpable: where the commands it
 * starts run as its own uid (bubblewrap, Kubernetes), they must not reach its protocol pipes
 * through /proc/PID/fd or ptrace.
 */
export const HELPER_BOOTSTRAP_UNDUMPABLE =
  'import sys\ntry:\n import ctypes;ctypes.CDLL(None).prctl(4,0,0,0,0)\nexcept Exception:\n pass\n' +
  'exec(compile(sys.stdin.buffer.read(int(sys.argv[1])),"debug-gym-helper","exec"))';

/**
 * Tiny program passed with `-c`: reads the helper source (length from argv) from stdin and runs it.
 * `-I -S`: isolated mode, no site import (fast start, immune to PYTHONPATH/usercustomize in the image).
 */
export const HELPER_BOOTSTRAP = 'import sys;exec(compile(sys.stdin.buffer.read(int(sys.argv[1])),"debug-gym-helper","exec"))';
