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


def set_process_name():
    # 'pkill python' inside the sandbox should not take the helper down with it.
    try:
        import ctypes
        libc = ctypes.CDLL(None)
        libc.prctl(15, b"debug-gym-helpr", 0, 0, 0)  # PR_SET_NAME
    except Exception:
        pass


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


def op_read(req):
    path = req["path"]
    st = os.stat(path)
    if stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, "Is a directory", path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "Not a regular file", path)
    limit = req.get("max")
    with open(path, "rb") as handle:
        if limit is None:
            return {"data": b64(handle.read())}
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            return {"tooLarge": size}
        data = handle.read(limit + 1)
        if len(data) > limit:
            return {"tooLarge": max(size, len(data))}
        return {"data": b64(data)}


def op_write(req):
    path = req["path"]
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    data = base64.b64decode(req.get("data") or "")
    flags = os.O_WRONLY | os.O_NONBLOCK  # NONBLOCK: a FIFO without a reader fails instead of hanging
    try:
        fd = os.open(path, flags | os.O_TRUNC)
    except FileNotFoundError:
        try:
            # O_EXCL: never create a file through a dangling symlink (it may lead out of the working copy).
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            raise OSError(errno.ENOENT, "Dangling symlink: its target does not exist", path)
    with os.fdopen(fd, "wb") as handle:
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


def op_run(req):
    started = time.monotonic()
    env = dict(BASE_ENV)
    env.update(req.get("env") or {})
    cap = int(req.get("cap", 1 << 20))
    timeout = req.get("timeout")
    data = req.get("input")
    proc = subprocess.Popen(
        [SHELL, "-c", req["cmd"]],
        stdin=subprocess.PIPE if data is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=req.get("cwd") or None,
        env=env,
        close_fds=True,
        start_new_session=True,
    )
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
    return {
        "exit": None if (timed_out or code < 0) else code,
        "out": b64(b"".join(chunks)),
        "dropped": dropped,
        "timedOut": timed_out,
        "ms": int((time.monotonic() - started) * 1000),
    }


SESSIONS = {}
SESSIONS_LOCK = threading.Lock()


def take_controlling_tty():
    # Runs in the child after setsid(): the PTY on stdin becomes its controlling terminal, so a
    # Ctrl-C written to the master reaches the session's foreground process group as SIGINT.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


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
        send({"ev": "exit", "sid": sid, "code": code if code >= 0 else None})


def op_pty_open(req):
    sid = req["sid"]
    env = dict(BASE_ENV)
    env.update(req.get("env") or {})
    if SHELL.endswith("bash"):
        argv = [SHELL, "--noprofile", "--norc", "-c", req["cmd"]]
    else:
        argv = [SHELL, "-c", req["cmd"]]
    master, slave = os.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[3] &= ~(termios.ECHO | termios.ECHONL)
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", int(req.get("rows", 50)), int(req.get("cols", 200)), 0, 0))
        proc = subprocess.Popen(
            argv,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=req.get("cwd") or None,
            env=env,
            close_fds=True,
            start_new_session=True,
            preexec_fn=take_controlling_tty,
        )
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
    return {"pid": proc.pid}


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
    "untar": op_untar,
    "run": op_run,
    "pty_open": op_pty_open,
    "pty_write": op_pty_write,
}
THREADED = {"run"}


def handle(req):
    rid = req.get("id")
    try:
        fn = OPS.get(req.get("op"))
        if fn is None:
            raise ValueError("unknown op %r" % (req.get("op"),))
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
    # The owner is gone (it closed us, or died without cleaning up): stop the container.
    try:
        os.kill(1, signal.SIGTERM)
    except OSError:
        pass


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
    set_process_name()
    ensure_localhost()
    # Ignored (children get the default back, subprocess restores it): a command that exits without
    # reading its input must not kill the helper feeding it.
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    send({"id": 0, "ok": True, "ready": True, "python": "%d.%d.%d" % sys.version_info[:3], "pid": os.getpid(),
          "uid": os.getuid(), "gid": os.getgid(), "shell": SHELL})
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
            return
        if req.get("op") in THREADED:
            try:
                threading.Thread(target=handle, args=(req,), daemon=True).start()
            except RuntimeError as error:  # no thread left (pids limit reached)
                send({"id": req.get("id"), "ok": False, "errno": "EAGAIN", "error": "cannot start a thread: %s" % error})
        else:
            handle(req)
    on_eof()


main()
`;

/**
 * Tiny program passed with `-c`: reads the helper source (length from argv) from stdin and runs it.
 * `-I -S`: isolated mode, no site import (fast start, immune to PYTHONPATH/usercustomize in the image).
 */
export const HELPER_BOOTSTRAP = 'import sys;exec(compile(sys.stdin.buffer.read(int(sys.argv[1])),"debug-gym-helper","exec"))';
