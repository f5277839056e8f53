/**
 * The helper's side of the fork server (Python, part of HELPER_SOURCE; see python/fork_server.py for
 * the server). `fork_start` starts the server as the sandbox user through the same shell wrapper as a
 * cold command; `run` and `pty_open` requests that carry `python: {args, uses}` are then started by
 * the server (a fork of its warm interpreter) instead of Popen, with the helper's own pipe or PTY
 * descriptors passed over a private socketpair. Whatever the server refuses, or when it is not
 * running, the cold command runs (or, with `fallback: false`, the answer says why, for the local
 * backend to run its own cold command).
 *
 * A forked child is the server's child, so its exit status comes from the server; when the server
 * dies (the agent can kill it: same uid), its children are reparented to the helper, a subreaper,
 * which then reaps them itself. A server that does not answer is killed, with the same effect.
 *
 * Same constraints as the rest of the helper: Python >= 3.8, standard library, no backticks or
 * dollar-brace sequences.
 */
export const FORK_CLIENT_SOURCE = String.raw`
FORK_START_TIMEOUT = 120.0   # seconds a server may take to import its modules
FORK_ANSWER_TIMEOUT = 60.0   # seconds a running server may take to answer (a busy machine); a stopped one is killed at once
FORK_EXIT_TIMEOUT = 2.0      # seconds to wait for the kernel to hand us a dead server's child
FORK_POLL = 0.25             # how often a wait looks whether the server was stopped (SIGSTOP)
FORK_MAX_STARTS = 4          # servers started per sandbox before giving up (each death costs one)
ZYGOTE_ANSWER_TIMEOUT = 30.0  # seconds the local backend's zygote may take to fork a server (a busy machine)


class ServerStopped(Exception):
    pass


class ForkServer(object):
    def __init__(self):
        self.lock = threading.Lock()
        self.state = "off"
        self.reason = "the fork server was not started"
        self.ready = threading.Event()
        self.config = None
        self.starts = 0
        self.sock = None
        self.proc = None
        self.info = None
        self.next_id = 1
        self.answers = {}
        self.exits = {}
        self.exit_events = {}
        self.jobs = None
        self.zygote_refusal = None
        self.retired = False

    def in_spawner(self, job):
        """Run job on one thread that lives as long as the helper: the server's PR_SET_PDEATHSIG
        fires when the thread that started it ends, so it must not be a request's thread."""
        with self.lock:
            if self.jobs is None:
                self.jobs = queue.Queue()
                threading.Thread(target=self.spawner, args=(self.jobs,), daemon=True).start()
            jobs = self.jobs
        box = [threading.Event(), None, None]
        jobs.put((job, box))
        box[0].wait()
        if box[2] is not None:
            raise box[2]
        return box[1]

    @staticmethod
    def spawner(jobs):
        while True:
            job, box = jobs.get()
            try:
                box[1] = job()
            except BaseException as error:
                box[2] = error
            box[0].set()

    def begin(self, config):
        """Called by the request loop, in order: a run sent after fork_start waits for this server."""
        with self.lock:
            self.config = config
            if self.state in ("starting", "ready"):
                return False
            self.state = "starting"
            self.ready.clear()
            return True

    def launch(self, zygote=True):
        import socket
        config = self.config
        self.starts += 1
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        proc = None
        try:
            fd = str(theirs.fileno())
            env = dict(BASE_ENV)
            env.update(config.get("env") or {})
            fill = lambda part: part.replace("@FD@", fd).replace("@PPID@", str(os.getpid()))
            argv = [fill(part) for part in config["argv"]] if config.get("argv") else [SHELL, "-c", fill(config["cmd"])]

            def start():
                changed = attributes_changed()
                if changed:
                    raise OSError(errno.EPERM, changed)
                with PROCS_LOCK:
                    started = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                               cwd=config.get("cwd") or None, env=env, close_fds=True, pass_fds=[theirs.fileno()],
                                               start_new_session=True, **user_options(False))
                    LIVE.add(started.pid)
                return started

            proc = self.from_zygote(config, theirs, env) if config.get("zygote") and zygote else None
            if proc is None:
                proc = self.in_spawner(start)
                theirs.close()
                mine.sendall(config["source"].encode("utf-8"))
            else:
                theirs.close()
            mine.sendall(json.dumps(env).encode("utf-8"))
            self.await_hello(mine, proc)
            hello = mine.recv(1 << 20)
            if not hello:
                raise OSError(errno.EPIPE, "it exited while importing (exit code %s)" % proc.wait())
            info = json.loads(hello.decode("utf-8"))
            if config.get("zygote") and zygote and not isinstance(proc, ZygoteChild):
                info["zygote"] = self.zygote_refusal
        except BaseException as error:
            mine.close()
            try:
                theirs.close()
            except OSError:
                pass
            if proc is not None:
                self.stop_process(proc)
            if isinstance(proc, ZygoteChild):  # what the zygote forked did not come up: start one as usual
                self.starts -= 1
                info = self.launch(False)
                if isinstance(info, dict) and info.get("ready") is not False:
                    info["zygote"] = "the server the zygote forked failed: %s" % error
                return info
            # A server the agent stopped is replaced like one it killed; other failures are final.
            return self.fail("the fork server could not start: %s" % error, isinstance(error, ServerStopped))
        with self.lock:
            retired = self.retired
            if not retired:
                self.sock, self.proc, self.info = mine, proc, info
                self.state = "ready"
                self.reason = None
                self.ready.set()
        if retired:  # its terminal closed while it started
            mine.close()
            self.stop_process(proc)
            return self.fail("the fork server was stopped")
        threading.Thread(target=self.listen, args=(mine, proc), daemon=True).start()
        return info

    def from_zygote(self, config, theirs, env):
        """The server the local backend's zygote forked for us, or None (self.zygote_refusal says
        why): then the server is started as usual. The zygote is this helper's unnamed server (FORK,
        started in zygote mode: python/fork_server.py), asked over its control socket."""
        self.zygote_refusal = None
        if FORK.stopped():  # the agent stopped it (same user): killed, and started again by usable()
            FORK.kill()
        reason = FORK.usable()  # waits for a zygote that is starting; starts again one that is gone
        with FORK.lock:
            zygote = FORK.info if FORK.state == "ready" else None
        if reason is not None or zygote is None or zygote.get("zygote") is not True:
            self.zygote_refusal = ("the zygote is not running: %s" % (reason or "it is starting again")) if zygote is None or reason \
                else "the zygote cannot fork servers: %s" % zygote.get("zygote")
            return None
        order = {"workdir": config.get("cwd"), "env": env, "marker": config.get("marker"),
                 "standbys": config.get("standbys") is not False, "helper": os.getpid()}
        answered, answer = FORK.ask({"server": order}, [theirs.fileno()], ZYGOTE_ANSWER_TIMEOUT)
        pid = (answer or {}).get("pid")
        if not isinstance(pid, int) or isinstance(pid, bool):
            self.zygote_refusal = ("the zygote did not answer within %d seconds (%s)" % (ZYGOTE_ANSWER_TIMEOUT, FORK.describe()) if not answered
                                   else "the zygote exited" if answer is None else answer.get("refused") or "the zygote refused")
            return None
        return ZygoteChild(pid)

    def ask(self, request, fds, timeout):
        """Send the server one request with descriptors: (answered in time, its answer, or None when
        the server exited first)."""
        import array
        import socket
        with self.lock:
            sock = self.sock
            if sock is None:
                return True, {"refused": self.reason or "the fork server is not running"}
            rid = self.next_id
            self.next_id += 1
            box = [threading.Event(), None]
            self.answers[rid] = box
        request = dict(request, id=rid)
        try:
            ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
            sock.sendmsg([json.dumps(request).encode("utf-8")], ancillary)
            answered = self.await_server(box[0], timeout)
        except OSError as error:
            answered, box[1] = True, {"refused": "the fork server is gone (%s)" % error}
        with self.lock:
            self.answers.pop(rid, None)
        return answered, box[1]

    def standby_pids(self):
        """The standbys the server holds, as it says (nothing when it does not answer at once)."""
        with self.lock:
            if self.state != "ready" or self.sock is None:
                return set()
        try:
            answered, answer = self.ask({"op": "standbys"}, [], 2.0)
        except Exception:
            return set()
        if not answered or not isinstance(answer, dict):
            return set()
        return set(pid for pid in answer.get("standbys") or [] if isinstance(pid, int))

    def own_pids(self):
        """The server process (as started, and as it said hello)."""
        pids = set()
        proc, info = self.proc, self.info
        if proc is not None and getattr(proc, "pid", None):
            pids.add(proc.pid)
        if isinstance(info, dict) and isinstance(info.get("pid"), int):
            pids.add(info["pid"])
        return pids

    @staticmethod
    def await_hello(sock, proc):
        # A server stopped while it imports (SIGSTOP from a command) would never say hello: every
        # run would wait for it until FORK_START_TIMEOUT. It is given up at once (then killed).
        deadline = time.monotonic() + FORK_START_TIMEOUT
        while not select.select([sock], [], [], FORK_POLL)[0]:
            if process_stopped(proc.pid):
                raise ServerStopped("it was stopped while importing (SIGSTOP)")
            if time.monotonic() >= deadline:
                raise OSError(errno.ETIMEDOUT, "no answer within %d seconds" % FORK_START_TIMEOUT)

    def fail(self, reason, retry=False):
        with self.lock:
            self.state = "dead" if retry else "failed"
            self.reason = reason
            self.ready.set()
        return {"ready": False, "reason": reason}

    def stop_process(self, proc):
        try:
            proc.send_signal(signal.SIGKILL)  # not to a pid already reaped (and reused)
        except OSError:
            pass
        proc.wait()
        with PROCS_LOCK:
            LIVE.discard(proc.pid)

    def listen(self, sock, proc):
        while True:
            try:
                data = sock.recv(1 << 20)
            except OSError:
                data = b""
            if not data:
                break
            message = json.loads(data.decode("utf-8"))
            with self.lock:
                if "exit" in message:
                    pid = message["exit"]
                    self.exits[pid] = message.get("code")
                    event = self.exit_events.get(pid)
                else:
                    box = self.answers.get(message.get("id"))
                    event = None
                    if box is not None:
                        box[1] = message
                        box[0].set()
            if event is not None:
                event.set()
        self.lost(sock, proc)

    def lost(self, sock, proc):
        # The server is gone (killed, or it left because a preloaded file changed): its running
        # children are reparented to us; the next request starts a new server.
        sock.close()
        self.stop_process(proc)
        with self.lock:
            if self.sock is sock:
                self.sock = None
                self.state = "dead"
                self.reason = "the fork server exited"
            for box in self.answers.values():
                box[0].set()
            for event in self.exit_events.values():
                event.set()

    def usable(self):
        """Wait for a starting server; restart a dead one (in the background: this request runs cold)."""
        if self.state == "starting":
            self.ready.wait(FORK_START_TIMEOUT)
        with self.lock:
            # A zygote (the local backend's) is started again however often the agent kills it: it
            # serves other terminals too, and each start is one the agent's own commands could cost anyway.
            again = self.starts < FORK_MAX_STARTS or (self.config or {}).get("as_zygote") is True
            if self.state == "dead" and self.config is not None and again:
                self.state = "starting"
                self.ready.clear()
                threading.Thread(target=self.launch, daemon=True).start()
                return "the fork server is restarting"
            if self.state != "ready":
                return self.reason or "the fork server is not running"
        return None

    def spawn(self, python, env, cwd, fds, pty):
        """A ForkedProcess, or the reason it was not forked (then the caller runs the cold command)."""
        with self.lock:
            parent = self.proc.pid if self.proc is not None else None
        request = {"argv": python.get("args"), "uses": python.get("uses") or [], "env": env, "cwd": cwd,
                   "pty": pty, "pdeathsig": python.get("pdeathsig") or 0}
        answered, answer = self.ask(request, fds, FORK_ANSWER_TIMEOUT)
        if answer is not None and "pid" in answer:
            with self.lock:  # its exit may have been heard already (exits): the event is set at once then
                self.exit_events[answer["pid"]] = threading.Event()
                if answer["pid"] in self.exits:
                    self.exit_events[answer["pid"]].set()
        if not answered:
            state = self.describe()
            self.kill()
            return "the fork server did not answer within %d seconds (%s)" % (FORK_ANSWER_TIMEOUT, state)
        if answer is None:
            return "the fork server exited"
        if "pid" not in answer:
            return answer.get("refused") or "refused"
        return ForkedProcess(self, int(answer["pid"]), parent, answer.get("standby") is True)

    def stopped(self):
        """The server is stopped (the agent sent it SIGSTOP) or traced: it will not answer."""
        with self.lock:
            proc = self.proc
        return proc is None or process_stopped(proc.pid)

    def await_server(self, event, timeout):
        """Wait for event; False when the server is stopped, or still silent after timeout (a busy
        server on a loaded machine only makes it slower)."""
        deadline = time.monotonic() + timeout
        while not event.wait(FORK_POLL):
            if self.stopped() or time.monotonic() >= deadline:
                return False
        return True

    def describe(self):
        """The server's scheduler state and wait channel, for the reason a request gives."""
        with self.lock:
            proc = self.proc
        if proc is None:
            return "no process"
        parts = []
        for name in ("stat", "wchan"):
            try:
                with open("/proc/%d/%s" % (proc.pid, name), "rb") as handle:
                    data = handle.read().decode("utf-8", "replace")
                parts.append("state " + data[data.rindex(")") + 2:][:1] if name == "stat" else "waiting in " + (data or "-"))
            except (OSError, ValueError):
                pass
        return ", ".join(parts) or "unknown"

    def retire(self):
        """Stopped for good (op_fork_stop): a launch still under way kills what it started."""
        with self.lock:
            self.retired = True
            self.config = None  # usable() restarts nothing
        self.kill()

    def kill(self):
        with self.lock:
            proc = self.proc
        if proc is not None:
            try:
                proc.send_signal(signal.SIGKILL)  # not to a pid already reaped (and reused)
            except OSError:
                pass

    def exit_code(self, pid, timeout, parent=None):
        """The child's exit status (negative: killed by that signal); NO_STATUS when not known in time
        (or when the server is stopped and cannot tell)."""
        with self.lock:
            event = self.exit_events.get(pid)
        if event is not None and timeout > 0:
            self.await_server(event, timeout)
        with self.lock:
            if pid in self.exits:
                self.exit_events.pop(pid, None)
                return self.exits.pop(pid)
            alive = self.sock is not None
        if alive:
            return NO_STATUS
        return reap_orphan(pid, timeout, parent)

    def forget(self, pid):
        with self.lock:
            self.exit_events.pop(pid, None)
            self.exits.pop(pid, None)


NO_STATUS = object()
HELPER_ATTRIBUTES = []  # this helper's limits, nice value and CPU affinity when it first started a server


def own_attributes():
    import resource
    limits = []
    for name in sorted(dir(resource)):
        if name.startswith("RLIMIT_"):
            try:
                limits.append((name, resource.getrlimit(getattr(resource, name))))
            except (ValueError, OSError):
                pass
    try:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
    except OSError:
        nice = None
    affinity = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return limits, nice, affinity


def attributes_changed():
    """Why no server may be started from this helper any more, or None: a process of the sandbox user
    can change another's limits, nice value and affinity without ptrace, and a server (and every run
    it forks) would inherit them (the local zygote's helper starts servers for other terminals)."""
    now = own_attributes()
    if not HELPER_ATTRIBUTES:
        HELPER_ATTRIBUTES.append(now)
    if now != HELPER_ATTRIBUTES[0]:
        return "the helper's resource limits, priority or CPU affinity were changed since it started a server"
    return None


class ZygoteChild(object):
    """What launch() uses of a Popen, for a server the zygote forked: the zygote's child, not ours,
    so it is waited for by looking (a pid whose start time changed is another process)."""

    def __init__(self, pid):
        self.pid = pid
        self.start = start_time(pid)
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            fields = stat_fields(self.pid)
            if self.start is None or fields is None or fields[0] == b"Z" or int(fields[19]) != self.start:
                self.returncode = -9  # the status is the zygote's
        return self.returncode

    def wait(self):
        while self.poll() is None:
            time.sleep(0.005)
        return self.returncode

    def send_signal(self, signum):
        if self.poll() is None:
            os.kill(self.pid, signum)


def stat_fields(pid, tid=None):
    """The fields of /proc/PID/stat (or of its thread TID) from the state on (stat(5) numbers them
    from 3), or None when the process is gone."""
    path = "/proc/%d/stat" % pid if tid is None else "/proc/%d/task/%s/stat" % (pid, tid)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    return data[data.rindex(b")") + 2:].split()


def start_time(pid):
    fields = stat_fields(pid)
    return int(fields[19]) if fields is not None else None


def process_stopped(pid):
    # Stopped (SIGSTOP) or traced, or gone: it will not answer.
    fields = stat_fields(pid)
    return fields is None or fields[0] in (b"T", b"t")


def reap_orphan(pid, timeout, server):
    # The server died: its child is ours now (we are its subreaper) once the kernel reparented it.
    # None: the status is lost (no subreaper on this host, or the process is gone). A zombie that
    # went to another parent (the local backend's helper is no subreaper) is not waited for: its
    # status is that parent's, which may reap it late (an init that reaps every second or so).
    deadline = time.monotonic() + timeout
    while True:
        try:
            waited, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            waited, status = -1, 0
        if waited == pid:
            return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if waited == -1 and reaped_elsewhere(pid, server):
            return None
        if time.monotonic() >= deadline:
            return NO_STATUS
        time.sleep(0.005)


def reaped_elsewhere(pid, server):
    # Gone, or a zombie whose parent is neither us nor the dead server (reparenting done, not to us).
    fields = stat_fields(pid)
    return fields is None or (fields[0] == b"Z" and int(fields[1]) not in (os.getpid(), server))


class ForkedProcess(object):
    """What op_run and the PTY reader use of a Popen, for a child of the fork server."""

    def __init__(self, server, pid, parent, standby=False):
        self.server = server
        self.pid = pid
        self.standby = standby  # forked ahead of its request
        self.parent = parent  # the server process that forked it
        self.returncode = None
        self.stdin = None
        self.stdout = None

    def poll(self):
        if self.returncode is None:
            code = self.server.exit_code(self.pid, 0, self.parent)
            if code is not NO_STATUS:
                self.returncode = -9 if code is None else code
        return self.returncode

    def settle(self):
        # The process has exited (its pidfd said so): its status arrives from the server, unless the
        # server is stopped; then the server is killed and we reap the child ourselves.
        if self.poll() is None:
            code = self.server.exit_code(self.pid, FORK_ANSWER_TIMEOUT, self.parent)
            if code is NO_STATUS:
                self.server.kill()
                code = self.server.exit_code(self.pid, FORK_EXIT_TIMEOUT, self.parent)
            self.returncode = -9 if code is None or code is NO_STATUS else code
        return self.returncode

    def wait(self):
        while self.returncode is None:
            code = self.server.exit_code(self.pid, 0.5, self.parent)
            if code is not NO_STATUS:
                self.returncode = -9 if code is None else code
            elif has_exited(self.pid):
                self.settle()
        self.server.forget(self.pid)
        return self.returncode


def has_exited(pid):
    # A zombie (nobody reaped it yet: its parent, the server, is stopped) or gone.
    fields = stat_fields(pid)
    return fields is None or fields[0] == b"Z"


FORK = ForkServer()
# A helper may run several servers, named by the requests' "server" (the local backend's zygote
# helper runs one per local terminal it serves); requests without a name use FORK.
FORKS = {}
FORKS_LOCK = threading.Lock()


def fork_server(name, create=False):
    """The fork server of that name (FORK for none), or None when it was never started or was stopped."""
    if name is None:
        return FORK
    with FORKS_LOCK:
        server = FORKS.get(name)
        if server is None and create:
            server = FORKS[name] = ForkServer()
        return server


def op_fork_start(req):
    server = fork_server(req.get("server"), True)
    if req.get("launch"):
        return {"server": server.launch()}
    server.ready.wait(FORK_START_TIMEOUT)
    with server.lock:
        if server.state == "ready":
            return {"server": server.info}
        return {"server": {"ready": False, "reason": server.reason}}


def op_fork_stop(req):
    """The terminal a named server served is gone: the server goes too (and is never restarted)."""
    with FORKS_LOCK:
        server = FORKS.pop(req.get("server"), None)
    if server is not None:
        server.retire()
    return {}


def fork_usable(python):
    """None when the request's fork server can take it, else why not (the caller runs it cold)."""
    server = fork_server(python.get("server"))
    return "the fork server was not started" if server is None else server.usable()


def fork_spawn(python, env, cwd, fds, pty):
    """Start a python request through its fork server (PROCS_LOCK held by the caller)."""
    server = fork_server(python.get("server"))
    if server is None:
        return "the fork server was not started"
    return server.spawn(python, env, cwd, fds, pty)
`;
