/**
 * The fork server on every backend (fork-server.<backend>.test.ts each run it on one), against the cold command it stands in for: real Python, real
 * PTYs, real bwrap and Docker. A forked program must see what the cold one sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PythonLaunch, RunResult, Terminal } from '@debug-gym/core';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { DockerTerminal } from '../src/docker-terminal.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';
import { requireOrSkip } from './sandbox-availability.js';
import { readdirSync, readFileSync } from 'node:fs';

/** Everything of the interpreter's state a program could look at, as JSON (pids left out). */
const PROBE = String.raw`
import json, os, signal, sys
import __main__
handlers = {}
for number in range(1, signal.NSIG):
    try:
        handler = signal.getsignal(number)
    except Exception:
        continue
    handlers[number] = handler if isinstance(handler, int) else getattr(handler, '__name__', repr(handler))
status = open('/proc/self/status').read()
state = {
    'argv': sys.argv, 'orig_argv': getattr(sys, 'orig_argv', None), 'path': sys.path, 'cwd': os.getcwd(),
    'env': dict(os.environ), 'main': sorted((k, type(v).__name__) for k, v in vars(__main__).items()),
    'modules': sorted(sys.modules), 'leader': [os.getsid(0) == os.getpid(), os.getpgrp() == os.getpid()],
    'tty': [os.isatty(fd) for fd in range(3)],
    'stdio': [(s.name, s.encoding, s.errors, s.line_buffering, s.write_through, s.mode, type(s.buffer).__name__) for s in (sys.stdin, sys.stdout, sys.stderr)],
    'dunder_stdio': [sys.stdin is sys.__stdin__, sys.stdout is sys.__stdout__, sys.stderr is sys.__stderr__],
    'signals': handlers, 'blocked': sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])),
    'umask': os.umask(0o22), 'comm': open('/proc/self/comm').read(),
    # Descriptors past stderr: a local command also inherits whatever its Node parent leaves inheritable.
    'fds': sorted(fd for fd in os.listdir('/proc/self/fd') if int(fd) < 3 or os.environ.get('PROBE_ALL_FDS')),
    'caps': [line for line in status.splitlines() if line.startswith(('Cap', 'NoNewPrivs', 'Uid', 'Gid', 'Groups'))],
    'flags': str(sys.flags), 'meta_path': [getattr(m, '__name__', type(m).__name__) for m in sys.meta_path],
    'path_hooks': len(sys.path_hooks), 'warnings': [str(f) for f in __import__('warnings').filters],
    'recursion': sys.getrecursionlimit(),
    'cmdline': open('/proc/self/cmdline', 'rb').read().decode(), 'environ': sorted(open('/proc/self/environ', 'rb').read().decode().split('\0')),
}
print(json.dumps(state, sort_keys=True))
`;

/** A test that prints what pytest's configuration holds (plugins named by id are the same kind in every run). */
const CONFIG_PROBE = String.raw`
import json
import _pytest.config


def test_probe(pytestconfig):
    config = pytestconfig
    params = config.invocation_params
    fresh = _pytest.config.get_config(['-q'])
    state = {
        'get_config': [_pytest.config.get_config.__module__, _pytest.config.get_config.__qualname__, _pytest.config.get_config.__code__.co_filename],
        'params': [list(params.args), [type(p).__name__ for p in params.plugins or []], str(params.dir)],
        'plugins': sorted('<id>' if name.isdigit() else name for name, _ in config.pluginmanager.list_name_plugin()),
        'blocked': sorted(name for name in ('cacheprovider', 'pastebin') if config.pluginmanager.is_blocked(name)),
        'options': sorted((key, repr(value)) for key, value in vars(config.option).items()),
        'fresh': [fresh is not config, fresh.pluginmanager is not config.pluginmanager, list(fresh.invocation_params.args)],
    }
    print('STATE' + json.dumps(state, sort_keys=True) + 'END')
`;

/** What the scoring launcher and the pdb driver import before the repository's code (the two groups), then the module list. */
const GROUP_IMPORTS = [
  'import json, os, shutil, sys, pytest, _pytest, pluggy, _pytest.runner, _pytest.reports, _pytest.main, _pytest.python, _pytest.terminal, _pytest.config',
  'from _pytest.config import default_plugins',
  'for name in default_plugins: __import__("_pytest." + name)',
  'import base64, zlib, bdb, inspect, io, linecache, pdb, runpy, cmd, code, glob',
  'print(json.dumps(sorted(sys.modules)))',
].join('\n');

function configState(output: string): unknown {
  const match = /STATE(.*)END/.exec(output);
  if (!match) throw new Error(`the config probe printed no state:\n${output}`);
  return JSON.parse(match[1]!);
}

const withoutDurations = (output: string): string => output.replace(/(?<![\d.])\d+\.\d+s/g, '<t>');

const REPO: Record<string, string> = {
  'probe.py': PROBE,
  'mod.py': 'VALUE = 1\nSTATE = []\n',
};

const SERVER_COMM = 'dg-fork-server';

/**
 * Python that sends `signal` to the fork server the program was forked from: its nearest ancestor
 * of that name (on the local backend a /proc scan would also hit other sandboxes' servers, e.g. of
 * test files running at the same time).
 */
function signalOwnServer(signal: 'SIGSTOP' | 'SIGKILL'): string {
  return [
    'import os, signal',
    'pid = os.getppid()',
    'while pid > 1:',
    `    if open("/proc/%d/comm" % pid).read().strip() == "${SERVER_COMM}":`,
    `        os.kill(pid, signal.${signal})`,
    '        break',
    '    stat = open("/proc/%d/stat" % pid).read()',
    '    pid = int(stat[stat.rindex(")") + 2:].split()[1])',
  ].join('\n');
}

/** The probe's JSON (a failure shows the text it got). */
function probed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`the probe printed no JSON:\n${text}`);
  }
}

interface Backend {
  name: string;
  create: (env?: Record<string, string>) => Terminal;
  /** The sandbox user is not root: it cannot reach into another process of its own uid that is non-dumpable. */
  confined: boolean;
  /** Before the suite's terminal starts its server: the local zygote it is to be forked from is ready. */
  warm?: () => Promise<void>;
}

const bubblewrap = await checkBubblewrap();
const docker = await dockerTestStatus();
const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
const localZygote = (env?: Record<string, string>): LocalTerminal => new LocalTerminal({ python, defaultTimeoutMs: 30_000, ...(env ? { env } : {}) });
const backends: Backend[] = [
  // The local backend twice: a server started as its own interpreter, and one forked by the zygote.
  { name: 'local', create: (env) => new LocalTerminal({ python, defaultTimeoutMs: 30_000, forkZygote: false, ...(env ? { env } : {}) }), confined: false },
  {
    name: 'local-zygote',
    create: localZygote,
    confined: false,
    warm: async () => {
      // The second terminal of a kind starts the zygote (if no terminal of this process did before).
      const ready: boolean[] = [];
      for (let index = 0; index < 2; index++) {
        const first = localZygote();
        await first.start();
        await first.startForkServer();
        ready.push(await first.zygoteReady());
        await first.close();
      }
      // Another file of this worker may have started the zygote already; the second is ready either way.
      expect(ready[1]).toBe(true);
    },
  },
];
if (requireOrSkip('bubblewrap', bubblewrap.available, bubblewrap.reason)) {
  backends.push({ name: 'bubblewrap', create: (env) => new BubblewrapTerminal({ python, defaultTimeoutMs: 30_000, ...(env ? { env } : {}) }), confined: true });
}
if (requireOrSkip('docker', docker.available, docker.reason)) {
  backends.push({ name: 'docker', create: (env) => new DockerTerminal({ image: TEST_IMAGE, python: 'python3', defaultTimeoutMs: 30_000, ...(env ? { env } : {}) }), confined: true });
}


/** The suite on one backend (one file per backend, so that two of them run at once); skipped when that backend is. */
export function describeForkServer(only: string): void {
describe.each(backends.filter((backend) => backend.name === only))('$name fork server', ({ name, create, confined, warm }) => {
  let term: Terminal;

  beforeAll(async () => {
    await warm?.();
    term = create();
    await term.start();
    for (const [name, content] of Object.entries(REPO)) await term.writeFile(name, content);
    const status = await term.startForkServer?.();
    expect(status).toMatchObject({ ready: true, groups: ['pytest', 'pdb'], problems: {} });
    if (term instanceof LocalTerminal) expect(term.forkServerOrigin).toHaveProperty(warm ? 'zygote' : 'started');
  });

  afterAll(async () => {
    await term?.close();
  });

  const launch = (args: string[], uses: PythonLaunch['uses'] = []): PythonLaunch => ({ args, uses });
  const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;
  const both = async (args: string[], options: { uses?: PythonLaunch['uses']; timeoutMs?: number } = {}): Promise<[RunResult, RunResult]> => {
    const command = `${term.python} ${args.map(quote).join(' ')}`;
    const cold = await term.run(command, { timeoutMs: options.timeoutMs ?? 30_000 });
    const forked = await term.run(command, { timeoutMs: options.timeoutMs ?? 30_000, python: launch(args, options.uses) });
    expect(forked.launch).toMatchObject({ via: 'fork-server' });
    return [cold, forked];
  };

  it('runs a script exactly as a cold `python script.py` (argv, path, environment, __main__, streams, signals, fds, modules)', async () => {
    const [cold, forked] = await both(['probe.py', 'a', 'b c']);
    expect(cold.exitCode).toBe(0);
    expect(probed(forked.output)).toEqual(probed(cold.output));
  });

  it('runs `python -c` and `python -m` exactly as cold ones, in a subdirectory too', async () => {
    await term.writeFile('sub/probe2.py', PROBE);
    const program = `exec(open(${JSON.stringify(`${term.workdir}/probe.py`)}).read())`;
    const [coldC, forkedC] = await both(['-c', program, 'x']);
    expect(probed(forkedC.output)).toEqual(probed(coldC.output));
    const inSub = async (python?: PythonLaunch): Promise<RunResult> => term.run(`${term.python} -m probe2 y`, { cwd: 'sub', timeoutMs: 30_000, ...(python ? { python } : {}) });
    const [coldM, forkedM] = [await inSub(), await inSub(launch(['-m', 'probe2', 'y']))];
    expect(forkedM.launch).toMatchObject({ via: 'fork-server' });
    expect(probed(forkedM.output)).toEqual(probed(coldM.output));
  });

  it('gives a session a PTY as controlling terminal, like the cold one', async () => {
    // The program waits after the marker, as pdb does at its prompt. Output a program leaves in a PTY
    // as it exits can be cut after the first 4095 bytes (the line discipline's buffer): libuv takes
    // POLLHUP after a partial read for EOF, so node-pty never reads the rest (about 1 run in 2 with 9 KB).
    const program = `exec(open(${JSON.stringify(`${term.workdir}/probe.py`)}).read()); import sys; sys.stdout.write('PROBE-END'); sys.stdout.flush(); sys.stdin.readline()`;
    const command = `${term.python} -c ${quote(program)}`;
    const read = async (python?: PythonLaunch): Promise<[string, string | undefined]> => {
      const session = await term.openSession(command, { prompt: 'PROBE-END', timeoutMs: 30_000, ...(python ? { python } : {}) });
      const result = await session.read();
      await session.close();
      return [result.output, session.launch?.via];
    };
    const [cold] = await read();
    const [forked, via] = await read(launch(['-c', program]));
    expect(via).toBe('fork-server');
    const coldState = probed(cold) as { tty: boolean[] };
    expect(coldState.tty).toEqual([true, true, true]);
    expect(probed(forked)).toEqual(coldState);
  });

  it('sees a module edited between two runs, and no run sees the state another left', async () => {
    const program = 'import mod, sys; mod.STATE.append(1); print(mod.VALUE, len(mod.STATE), hasattr(sys, "planted")); sys.planted = 1';
    const run = () => term.run(`${term.python} -c ${quote(program)}`, { python: launch(['-c', program], ['pytest']) });
    expect((await run()).output).toBe('1 1 False\n');
    await term.writeFile('mod.py', 'VALUE = 2\nSTATE = []\n');
    const second = await run();
    expect(second.launch?.via).toBe('fork-server');
    expect(second.output).toBe('2 1 False\n');
  });

  /**
   * Runs `run` until the fork server handed it to a standby (a child forked while it was idle). On a
   * busy machine a standby waits for a free core, or for 1 s without a request: later attempts wait longer.
   */
  const untilStandby = async (run: () => Promise<RunResult>): Promise<RunResult> => {
    for (let attempt = 0; attempt < 60; attempt++) {
      const result = await run();
      if (result.launch?.standby) return result;
      await new Promise((resolve) => setTimeout(resolve, attempt < 5 ? 100 : 1_300));
    }
    throw new Error('no run was handed to a standby in 60 attempts');
  };

  it('hands a run to a child it forked ahead (a standby): the program sees what a cold run and a fresh fork see', async () => {
    const command = `${term.python} probe.py a 'b c'`;
    const forked = (): Promise<RunResult> => term.run(command, { timeoutMs: 30_000, python: launch(['probe.py', 'a', 'b c']) });
    const cold = await term.run(command, { timeoutMs: 30_000 });
    const standby = await untilStandby(forked);
    expect(standby.launch).toEqual({ via: 'fork-server', standby: true });
    // Two at once: at most one standby per kind of run, and none is made while a child runs.
    let fresh: RunResult | undefined;
    for (let attempt = 0; attempt < 20 && !fresh; attempt++) fresh = (await Promise.all([forked(), forked()])).find((result) => !result.launch?.standby);
    expect(fresh?.launch).toEqual({ via: 'fork-server' });
    expect(probed(standby.output)).toEqual(probed(cold.output));
    expect(probed(fresh?.output ?? '')).toEqual(probed(cold.output));
  });

  it('hands a program compiled after the standby was forked over with the request: the standby runs the cached code', async () => {
    // White-box, as the compile-cache test: the program finds the server's cache through its caller's
    // globals. Each attempt is a new program, so the server compiles it after every standby was forked.
    const program = (attempt: number): string =>
      [`# standby-handover ${attempt}`, 'import sys', 'cache = sys._getframe(1).f_globals.get("COMPILED", {})', `print(any(key == ("c", sys.orig_argv[2]) for key in cache))`].join('\n');
    let attempt = 0;
    const result = await untilStandby(() => term.run(`${term.python} -c ${quote(program(++attempt))}`, { python: launch(['-c', program(attempt)], ['pytest']) }));
    expect(result.output).toBe('True\n');
  });

  /** Python that lists this run's server's standbys: its children that still carry the server's name. */
  const STANDBYS_OF_MY_SERVER = [
    'import os',
    'def standbys(server=os.getppid()):',
    '    found = []',
    '    for p in os.listdir("/proc"):',
    '        try:',
    '            stat = open("/proc/%s/stat" % p).read()',
    `            if int(stat[stat.rindex(")") + 2:].split()[1]) == server and open("/proc/%s/comm" % p).read().strip() == "${SERVER_COMM}":`,
    '                found.append(int(p))',
    '        except (OSError, ValueError):',
    '            pass',
    '    return found',
  ].join('\n');

  for (const signal of ['SIGSTOP', 'SIGKILL'] as const) {
    it(`does not hand a run to a standby the agent ${signal === 'SIGSTOP' ? 'stopped' : 'killed'}: the run is forked fresh and ends as it should`, async () => {
      // The agent's program finds its server (its parent) and the server's idle children of the same name.
      const program = [
        STANDBYS_OF_MY_SERVER,
        'import signal, time',
        'deadline = time.monotonic() + 20',
        'while len(standbys()) < 2 and time.monotonic() < deadline:',
        '    time.sleep(0.05)',
        'for pid in standbys():',
        `    os.kill(pid, signal.${signal})`,
        'print(len(standbys()) >= 2 if signal.' + signal + ' == signal.SIGSTOP else True)',
      ].join('\n');
      const agent = await term.run(`${term.python} -c ${quote(program)}`, { timeoutMs: 30_000, python: launch(['-c', program]) });
      expect(agent.output).toBe('True\n');
      for (const uses of [['pytest'], ['pytest', 'pdb']] as const) {
        const result = await term.run(`${term.python} -c 'raise SystemExit(3)'`, { timeoutMs: 20_000, python: launch(['-c', 'raise SystemExit(3)'], [...uses]) });
        expect({ exitCode: result.exitCode, timedOut: result.timedOut, via: result.launch?.via }).toEqual({ exitCode: 3, timedOut: false, via: 'fork-server' });
      }
    });
  }

  it("does not hand a run to a standby whose limits or scheduling the agent changed, nor fork from a server it changed", async () => {
    // Same uid: prlimit and setpriority reach a non-dumpable process. A run would inherit the change.
    const show = 'import os, resource; print(resource.getrlimit(resource.RLIMIT_NOFILE)[0], os.getpriority(os.PRIO_PROCESS, 0))';
    const expected = (await term.run(`${term.python} -c ${quote(show)}`)).output;
    const tamper = (target: string): string => [
      STANDBYS_OF_MY_SERVER,
      'import resource, time',
      'deadline = time.monotonic() + 20',
      'while len(standbys()) < 2 and time.monotonic() < deadline:',
      '    time.sleep(0.05)',
      `for pid in ${target}:`,
      '    resource.prlimit(pid, resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))',
      '    os.setpriority(os.PRIO_PROCESS, pid, 15)',
      'print(len(standbys()) >= 2)',
    ].join('\n');
    const standbysChanged = await term.run(`${term.python} -c ${quote(tamper('standbys()'))}`, { python: launch(['-c', tamper('standbys()')]) });
    expect(standbysChanged.output).toBe('True\n');
    for (const uses of [['pytest'], ['pytest', 'pdb']] as const) {
      const result = await term.run(`${term.python} -c ${quote(show)}`, { python: launch(['-c', show], [...uses]) });
      expect({ output: result.output, via: result.launch?.via }).toEqual({ output: expected, via: 'fork-server' });
    }
    // The server itself: the next run is cold, and a new server serves the ones after it.
    const serverChanged = await term.run(`${term.python} -c ${quote(tamper('[os.getppid()]'))}`, { python: launch(['-c', tamper('[os.getppid()]')]) });
    expect(serverChanged.launch?.via).toBe('fork-server');
    const next = await term.run(`${term.python} -c ${quote(show)}`, { python: launch(['-c', show]) });
    expect(next).toMatchObject({ output: expected, launch: { via: 'cold', reason: expect.stringContaining('resource limits, priority or CPU affinity') } });
    const vias: Array<string | undefined> = [];
    for (let attempt = 0; attempt < 40 && vias.at(-1) !== 'fork-server'; attempt++) {
      const result = await term.run(`${term.python} -c ${quote(show)}`, { python: launch(['-c', show]) });
      expect(result.output).toBe(expected);
      vias.push(result.launch?.via);
      if (result.launch?.via !== 'fork-server') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(vias.at(-1)).toBe('fork-server');
  });

  it('runs a program handed to a standby as a cold run does: set literals iterate in the same order, deep nesting runs forked', async () => {
    // marshal rebuilds a frozenset constant in iteration order, which can change it: such code is not handed over.
    let attempt = 0;
    const sets = (n: number): string => `# ${n}\nfor x in {8, 32, 15, 63}: print(x, end=" ")\nprint()`;
    const cold = await term.run(`${term.python} -c ${quote(sets(0))}`);
    const onStandby = await untilStandby(() => term.run(`${term.python} -c ${quote(sets(++attempt))}`, { python: launch(['-c', sets(attempt)], ['pytest']) }));
    expect(onStandby.output).toBe(cold.output);
    // Too deep for marshal: the standby compiles it itself (the run is not sent cold).
    const deep = `f = ${'lambda: '.repeat(900)}7\nprint("deep")`;
    const forked = await untilStandby(() => term.run(`${term.python} -c ${quote(deep)}`, { python: launch(['-c', deep], ['pytest']) }));
    expect(forked.output).toBe((await term.run(`${term.python} -c ${quote(deep)}`)).output);
  });

  it('makes no standby while a run is busy, even one waiting for its own busy subprocess', async () => {
    const program = [
      STANDBYS_OF_MY_SERVER,
      'import subprocess, sys, time',
      'before = set(standbys())',
      'busy = subprocess.Popen([sys.executable, "-c", "import time\\nend = time.monotonic() + 1.5\\nwhile time.monotonic() < end: pass"])',
      'new = set()',
      'while busy.poll() is None:',
      '    new |= set(standbys()) - before',
      '    time.sleep(0.02)',
      'print("new standbys:", len(new))',
    ].join('\n');
    const result = await term.run(`${term.python} -c ${quote(program)}`, { python: launch(['-c', program], ['pytest']) });
    expect(result.output).toBe('new standbys: 0\n');
  });

  it('makes no standby when told not to (standbys: false)', async () => {
    const plain = create();
    try {
      await plain.start();
      expect(await plain.startForkServer?.({ standbys: false })).toMatchObject({ ready: true });
      for (let run = 0; run < 5; run++) {
        const result = await plain.run(`${plain.python} -c 'print(5)'`, { python: launch(['-c', 'print(5)'], ['pytest']) });
        expect(result).toMatchObject({ output: '5\n', launch: { via: 'fork-server' } });
        expect(result.launch?.standby).toBeUndefined();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await plain.close();
    }
  });

  it('exits like Python: sys.exit codes, tracebacks without the server, death by SIGINT', async () => {
    for (const program of ['import sys; sys.exit(3)', 'import sys; sys.exit("bye")', 'def f():\n    raise ValueError("boom")\nf()', 'raise KeyboardInterrupt']) {
      const [cold, forked] = await both(['-c', program]);
      expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
    }
  });

  it("hands pytest.main the configuration it prepared: the run sees what a cold one sees, with -p options and usage errors too", async () => {
    await term.writeFile('probe_config/test_config_probe.py', CONFIG_PROBE);
    const run = async (args: string[]): Promise<[RunResult, RunResult]> => {
      const command = `${term.python} ${args.map(quote).join(' ')}`;
      const cold = await term.run(command, { cwd: 'probe_config', timeoutMs: 30_000 });
      const forked = await term.run(command, { cwd: 'probe_config', timeoutMs: 30_000, python: launch(args, ['pytest']) });
      expect(forked.launch).toMatchObject({ via: 'fork-server' });
      expect({ output: withoutDurations(forked.output), exitCode: forked.exitCode }).toEqual({ output: withoutDurations(cold.output), exitCode: cold.exitCode });
      return [cold, forked];
    };
    for (const args of [['-m', 'pytest', '-s', '-q', 'test_config_probe.py'], ['-m', 'pytest', '-s', '-q', '-p', 'pytester', '-k', 'probe']]) {
      const [cold, forked] = await run(args);
      expect(cold.exitCode).toBe(0);
      expect(configState(forked.output)).toEqual(configState(cold.output));
    }
    // A usage error names the program (pytest 9 builds its parser, and takes that name, in get_config).
    expect((await run(['-m', 'pytest', '--no-such-option']))[0].exitCode).toBe(4);
  });

  it('hands it over only to programs that use pytest alone, and only on their first get_config', async () => {
    // White-box: get_config's code before and after the first call (a program that looks before it calls
    // pytest.main sees the hand-over; the contract says programs with uses ['pytest'] call it first).
    const program = 'import _pytest.config as c; print(c.get_config.__code__.co_filename); c.get_config(["-q"]); print(c.get_config.__code__.co_filename)';
    const pytestFile = (await term.run(`${term.python} -c 'import _pytest.config as c; print(c.__file__)'`)).output.trim();
    const run = async (uses: PythonLaunch['uses']): Promise<string[]> => (await term.run(`${term.python} -c ${quote(program)}`, { python: launch(['-c', program], uses) })).output.trim().split('\n');
    expect(await run(['pytest'])).toEqual(['<debug-gym-fork-server>', pytestFile]);
    expect(await run(['pytest', 'pdb'])).toEqual([pytestFile, pytestFile]);
    // A pdb child stops at its prompt before get_config runs: nothing get_config imported is there yet.
    const [cold, forked] = await both(['-c', GROUP_IMPORTS], { uses: ['pytest', 'pdb'] });
    expect(JSON.parse(forked.output)).toEqual(JSON.parse(cold.output));
  });

  it('does not run gc callbacks at exit, as CPython\'s shutdown collection does not', async () => {
    // The callback uses a global of its module, which the child's exit empties before its last collection.
    await term.writeFile('gc_hook.py', ['import gc', '', 'def _sink(phase):', '    pass', '', 'def _report(phase, info):', '    _sink(phase)', '', 'gc.callbacks.append(_report)', ''].join('\n'));
    const [cold, forked] = await both(['-c', 'import gc_hook; print("done")'], { uses: ['pytest'] });
    expect(cold.output).toBe('done\n');
    expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
  });

  it('compiles a script or `-c` program once for all children: each run sees its own path, a warning or an error as a cold run does', async () => {
    // Run from two directories with the same source: the cached code object takes each run's path,
    // its nested functions' too (traceback lines, inspect). White-box: the program finds the server's
    // cache through its caller's globals (the server's run_script); a cold run has no caller.
    const script = [
      'import inspect, os, sys, traceback',
      'def inner():',
      '    return inner.__code__.co_filename, inspect.getsourcefile(inner), traceback.format_stack()[-1]',
      'class K:',
      '    def m(self):',
      '        raise ValueError("x")',
      'print(__file__, inner())',
      'try:',
      '    K().m()',
      'except ValueError:',
      '    traceback.print_exc(file=sys.stdout)',
      'try:',
      '    cache = sys._getframe(1).f_globals.get("COMPILED", {})',
      '    print("cached:", ("script", open(__file__, "rb").read()) in cache, file=sys.stderr)',
      'except ValueError:',
      '    print("cached: cold", file=sys.stderr)',
      'print("fds:", sorted(int(fd) for fd in os.listdir("/proc/self/fd")), file=sys.stderr)',
      '',
    ].join('\n');
    for (const dir of ['cc/a', 'cc/b']) await term.writeFile(`${dir}/tb.py`, script);
    const split = (result: RunResult): { out: string; err: string } => ({ out: result.output.replace(/^(cached|fds): .*\n/gm, ''), err: result.output.match(/^(cached|fds): .*$/gm)?.join('\n') ?? '' });
    for (const dir of ['cc/a', 'cc/a', 'cc/b']) {
      const [cold, forked] = await both([`${dir}/tb.py`]);
      expect(split(cold).out).toContain(`${dir}/tb.py", line 6, in m`);
      expect(split(forked).out).toBe(split(cold).out);
      expect(split(cold).err).toMatch(/^cached: cold$/m);
      // The server compiles it before the first fork (the second run of cc/a, and cc/b, reuse it).
      expect(split(forked).err).toBe('cached: True\nfds: [0, 1, 2, 3]');
    }
    // Compiling warns (SyntaxWarning): not cached, every run shows the warning. A syntax error: the
    // child's own compile raises it, as the cold interpreter prints it.
    await term.writeFile('cc/warns.py', 'x = 1\nif x is 1:\n    print("one")\n');
    for (let run = 0; run < 2; run++) {
      const [cold, forked] = await both(['cc/warns.py']);
      expect(cold.output).toContain('SyntaxWarning');
      expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
    }
    // The server's warning filters are as they were: a warning ignored by default (ResourceWarning)
    // stays silent in a child without the warnings module, as in a cold run.
    const [quietCold, quiet] = await both(['-c', 'open("cc/warns.py").read(1)\nprint("quiet")']);
    expect(quietCold.output).toBe('quiet\n');
    expect(quiet.output).toBe(quietCold.output);
    await term.writeFile('cc/bad.py', 'def f(:\n    pass\n');
    for (const args of [['-c', 'def f(:\n    pass'], ['-c', 'print("same program, cached")'], ['cc/bad.py'], ['cc/bad.py']]) {
      const [cold, forked] = await both(args);
      expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
    }
    // Compiling a non-ASCII identifier imports unicodedata: the child compiles such a program itself,
    // so it imports what a cold run imports (and no later child inherits it).
    await term.writeFile('cc/accent.py', 'é = 1\nimport sys\nprint("unicodedata" in sys.modules)\n');
    for (const args of [['cc/accent.py'], ['cc/accent.py'], ['-c', 'import sys; print("unicodedata" in sys.modules)']]) {
      const [cold, forked] = await both(args);
      expect(forked.output).toBe(cold.output);
    }
    // What Python's file reader treats unlike compile() (a null byte, bytecode) runs cold.
    await term.writeFile('cc/nul.py', 'print(1)\n\0\n');
    const nul = await term.run(`${term.python} cc/nul.py`, { python: launch(['cc/nul.py']) });
    expect(nul.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('null byte') });
    // A script the server cannot read as a regular file (missing, a directory) runs cold.
    await term.writeFile('cc/dir/__main__.py', 'print("main of a directory")\n');
    for (const script of ['cc/missing.py', 'cc/dir']) {
      const command = `${term.python} ${script}`;
      const cold = await term.run(command);
      const forked = await term.run(command, { python: launch([script]) });
      expect(forked.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('regular file') });
      expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
    }
  });

  it('kills the forked process group at the time limit', async () => {
    const program = 'import subprocess, time; subprocess.Popen(["sleep", "60"]); time.sleep(60)';
    const result = await term.run(`${term.python} -c ${quote(program)}`, { timeoutMs: 700, python: launch(['-c', program]) });
    expect(result).toMatchObject({ timedOut: true, exitCode: null, launch: { via: 'fork-server' } });
  });

  it('runs the cold command when the working copy shadows a preloaded module, or the arguments are not plain', async () => {
    await term.writeFile('pluggy.py', '');
    const shadowed = await term.run(`${term.python} -c pass`, { python: launch(['-c', 'pass'], ['pytest']) });
    expect(shadowed.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('pluggy.py would shadow a preloaded module') });
    await term.remove('pluggy.py');
    const options = await term.run(`${term.python} -X dev -c pass`, { python: launch(['-X', 'dev', '-c', 'pass']) });
    expect(options.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('interpreter options') });
    const env = await term.run(`${term.python} -c pass`, { env: { PYTHONHASHSEED: '1' }, python: launch(['-c', 'pass']) });
    expect(env.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('PYTHONHASHSEED') });
    // pytest then never imports the blocked default plugin (nor stepwise, for cacheprovider); the server has.
    for (const block of [['-p', 'no:cacheprovider'], ['-pno:pastebin']]) {
      const args = ['-m', 'pytest', '-q', ...block, '--version'];
      const blocked = await term.run(`${term.python} ${args.join(' ')}`, { python: launch(args, ['pytest']) });
      expect(blocked.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('-p no:NAME') });
    }
  });

  if (confined) it('cannot be reached into by the agent: no /proc memory, environment or descriptors', async () => {
    const program = [
      'import os',
      // The server and its standbys (children forked ahead, which carry its name until their request).
      'import time',
      `named = lambda: [p for p in os.listdir("/proc") if p.isdigit() and open("/proc/%s/comm" % p).read().strip() == "${SERVER_COMM}"]`,
      'deadline = time.monotonic() + 20',
      'while len(named()) < 2 and time.monotonic() < deadline:  # the server and at least one standby',
      '    time.sleep(0.05)',
      'pids = named()',
      'seen = set()',
      'for pid in pids:',
      '    for what in ("mem", "environ", "fd"):',
      '        try:',
      '            os.listdir("/proc/%s/fd" % pid) if what == "fd" else open("/proc/%s/%s" % (pid, what), "rb").read(1)',
      '            seen.add(what + " open")',
      '        except PermissionError:',
      '            seen.add(what + " denied")',
      'print(len(pids) >= 2, sorted(seen))',
    ].join('\n');
    const result = await term.run(`${term.python} -c ${quote(program)}`, { python: launch(['-c', program]) });
    expect(result.output).toBe("True ['environ denied', 'fd denied', 'mem denied']\n");
  });

  it('survives the agent stopping it (SIGSTOP): runs still end with their own exit code, and a new server takes over', async () => {
    const stop = `${signalOwnServer('SIGSTOP')}\nraise SystemExit(7)`;
    const stopped = await term.run(`${term.python} -c ${quote(stop)}`, { python: launch(['-c', stop]) });
    // The stopped server cannot report this child's exit: the helper kills it and reaps the child itself.
    if (confined) expect(stopped.exitCode).toBe(7);
    const vias: Array<string | undefined> = [];
    for (let attempt = 0; attempt < 40 && vias.at(-1) !== 'fork-server'; attempt++) {
      const result = await term.run(`${term.python} -c 'raise SystemExit(3)'`, { python: launch(['-c', 'raise SystemExit(3)']) });
      expect(result.exitCode).toBe(3);
      vias.push(result.launch?.via);
      if (result.launch?.via !== 'fork-server') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(vias.at(-1)).toBe('fork-server');
  });

  if (name === 'local') it('gives up at once a server stopped while it imports (no run waits for it), and starts a new one', async () => {
    const fresh = create();
    try {
      await fresh.start();
      const starting = fresh.startForkServer?.();
      // The server's command line names its working copy: stop this terminal's server as soon as it runs.
      let stopped = false;
      for (let attempt = 0; attempt < 5000 && !stopped; attempt++) {
        for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
          try {
            const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
            if (!cmdline.startsWith(fresh.python) || !cmdline.includes('<debug-gym-fork-server>') || !cmdline.includes(fresh.workdir)) continue;
            process.kill(Number(pid), 'SIGSTOP');
            stopped = true;
          } catch {
            // gone, or not ours
          }
        }
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(await starting).toMatchObject({ ready: false, reason: expect.stringContaining('stopped while importing') });
      const vias: Array<string | undefined> = [];
      for (let attempt = 0; attempt < 40 && vias.at(-1) !== 'fork-server'; attempt++) {
        const result = await fresh.run(`${fresh.python} -c 'print(2)'`, { python: launch(['-c', 'print(2)']) });
        expect(result.output).toBe('2\n');
        vias.push(result.launch?.via);
        if (result.launch?.via !== 'fork-server') await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(vias.at(-1)).toBe('fork-server');
    } finally {
      await fresh.close();
    }
  });

  it('survives the agent killing it: that run is cold, a new server serves the next ones', async () => {
    const kill = signalOwnServer('SIGKILL');
    await term.run(`${term.python} -c ${quote(kill)}`, { python: launch(['-c', kill]) });
    const vias: Array<string | undefined> = [];
    for (let attempt = 0; attempt < 40 && vias.at(-1) !== 'fork-server'; attempt++) {
      const result = await term.run(`${term.python} -c 'print(1)'`, { python: launch(['-c', 'print(1)']) });
      expect(result.output).toBe('1\n');
      vias.push(result.launch?.via);
      if (result.launch?.via !== 'fork-server') await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(vias[0]).toBe('cold');
    expect(vias.at(-1)).toBe('fork-server');
  });

  it('is closed to the sandbox user from its first import on: a module imported while it preloads finds it non-dumpable', async () => {
    // A module on PYTHONPATH that pytest imports as it is imported (iniconfig, whose place it takes: the
    // pytest group then fails, which the status reports). It records PR_GET_DUMPABLE; dumpable there
    // would let the agent's processes ptrace the server while it imports, where Yama allows it.
    const dir = `/tmp/dg-dumpable-probe-${process.pid}-${name}`;
    const planted = [
      'import ctypes, os',
      "with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dumpable.txt'), 'w') as handle:",
      '    handle.write(str(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)))',
    ].join('\n');
    const probe = create({ PYTHONPATH: dir });
    try {
      await probe.start();
      const setup = await probe.run(`mkdir -p ${dir} && printf '%s\\n' ${quote(planted)} > ${dir}/iniconfig.py`);
      expect(setup.exitCode).toBe(0);
      const status = await probe.startForkServer?.();
      expect(status).toMatchObject({ ready: true, problems: { pytest: expect.stringContaining('iniconfig') } });
      expect((await probe.run(`cat ${dir}/dumpable.txt`)).output).toBe('0');
    } finally {
      await probe.run(`rm -rf ${dir}`).catch(() => undefined);
      await probe.close();
    }
  });

  it('prepares no configuration under shell completion (_ARGCOMPLETE): pytest imports argcomplete as a child would', async () => {
    const probe = create({ _ARGCOMPLETE: '1' });
    try {
      await probe.start();
      expect(await probe.startForkServer?.()).toMatchObject({ ready: true });
      const args = ['-m', 'pytest', '--version'];
      const command = `${probe.python} ${args.join(' ')}`;
      const cold = await probe.run(command, { timeoutMs: 30_000 });
      const forked = await probe.run(command, { timeoutMs: 30_000, python: launch(args, ['pytest']) });
      expect(forked.launch).toMatchObject({ via: 'fork-server' });
      expect({ output: forked.output, exitCode: forked.exitCode }).toEqual({ output: cold.output, exitCode: cold.exitCode });
    } finally {
      await probe.close();
    }
  });

  it('makes a group that prints while it is imported a problem: its programs run cold and show the output themselves', async () => {
    // A module pytest imports (iniconfig) on PYTHONPATH that prints, then hands over the real one.
    const dir = `/tmp/dg-printing-probe-${process.pid}-${name}`;
    const planted = ['import sys', 'print("hello from the preload")', 'del sys.modules["iniconfig"]', `sys.path.remove(${JSON.stringify(dir)})`, 'import iniconfig'].join('\n');
    const probe = create({ PYTHONPATH: dir });
    try {
      await probe.start();
      expect((await probe.run(`mkdir -p ${dir} && printf '%s\\n' ${quote(planted)} > ${dir}/iniconfig.py`)).exitCode).toBe(0);
      const status = await probe.startForkServer?.();
      expect(status).toMatchObject({ ready: true, problems: { pytest: expect.stringContaining("importing it prints 'hello from the preload") } });
      const args = ['-m', 'pytest', '--version'];
      const run = await probe.run(`${probe.python} ${args.join(' ')}`, { python: launch(args, ['pytest']) });
      expect(run.launch).toMatchObject({ via: 'cold', reason: expect.stringContaining('cannot be preloaded') });
      expect(run.output).toContain('hello from the preload');
    } finally {
      await probe.run(`rm -rf ${dir}`).catch(() => undefined);
      await probe.close();
    }
  });

  it('leaves pytest11 entry-point plugins to the child: pytest imports them through its assertion rewriter', async () => {
    // A plugin distribution as pip installs one (RECORD lists its module): pytest marks the module for
    // rewriting, so one the server had imported would be plain and warned about ("already imported").
    const dir = `/tmp/dg-entry-point-probe-${process.pid}-${name}`;
    const info = `${dir}/dg_entry_probe-1.0.dist-info`;
    const plugin = ['def check(value):', '    assert value == 1', '', 'def pytest_report_header(config):', '    return "dg-entry-probe loaded"'].join('\n');
    const test = ['from dg_entry_probe import check', '', 'def test_rewritten():', '    check(2)'].join('\n');
    const probe = create({ PYTHONPATH: dir });
    try {
      await probe.start();
      const setup = await probe.run(
        [
          `mkdir -p ${info}`,
          `printf '%s\\n' ${quote(plugin)} > ${dir}/dg_entry_probe.py`,
          `printf 'Metadata-Version: 2.1\\nName: dg-entry-probe\\nVersion: 1.0\\n' > ${info}/METADATA`,
          `printf '[pytest11]\\ndg_entry_probe = dg_entry_probe\\n' > ${info}/entry_points.txt`,
          `printf 'dg_entry_probe.py,,\\ndg_entry_probe-1.0.dist-info/METADATA,,\\n' > ${info}/RECORD`,
        ].join(' && '),
      );
      expect(setup.exitCode).toBe(0);
      await probe.writeFile('test_entry.py', `${test}\n`);
      expect(await probe.startForkServer?.()).toMatchObject({ ready: true, problems: {} });
      const args = ['-m', 'pytest', '-q', 'test_entry.py'];
      const command = `${probe.python} ${args.join(' ')}`;
      const cold = await probe.run(command, { timeoutMs: 30_000 });
      const forked = await probe.run(command, { timeoutMs: 30_000, python: launch(args, ['pytest']) });
      expect(forked.launch).toMatchObject({ via: 'fork-server' });
      // Rewritten in the plugin: the failure shows the compared value.
      expect(cold.output).toContain('assert 2 == 1');
      expect(withoutDurations(forked.output)).toBe(withoutDurations(cold.output));
    } finally {
      await probe.run(`rm -rf ${dir}`).catch(() => undefined);
      await probe.close();
    }
  });
});
}
