/**
 * The local backend's zygote (local-zygote.ts, fork_server.py in zygote mode): real Python, real
 * processes. What its servers run is checked by the whole fork-server suite ('local-zygote' there);
 * here: where they come from, that they go with their terminal, and that an agent who tampers with
 * the zygote (same user: it can) only makes terminals start their own, and malformed orders are refused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { gc } from '../src/gc.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { LocalZygote, zygoteDirectories } from '../src/local-zygote.js';
import { procStat } from '../src/process-identity.js';

const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
const here = dirname(fileURLToPath(import.meta.url));
const terminals: LocalTerminal[] = [];

async function terminal(): Promise<LocalTerminal> {
  const term = new LocalTerminal({ python, defaultTimeoutMs: 30_000 });
  terminals.push(term);
  await term.start();
  await term.startForkServer();
  return term;
}

/** A terminal whose fork server the zygote forked (the zygote is started first when there is none: the second terminal of a kind starts it). */
async function zygoteTerminal(): Promise<[LocalTerminal, number]> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const term = await terminal();
    const origin = term.forkServerOrigin;
    if (origin && 'zygote' in origin) return [term, origin.zygote];
    await term.zygoteReady();
    await term.close();
  }
  throw new Error('no terminal got its server from the zygote');
}

async function forked(term: LocalTerminal, program: string): Promise<string> {
  const result = await term.run(`${term.python} -c '${program}'`, { python: { args: ['-c', program], uses: [] } });
  expect(result.launch).toMatchObject({ via: 'fork-server' });
  return result.output.trim();
}

const serverOf = async (term: LocalTerminal): Promise<number> => Number(await forked(term, 'import os; print(os.getppid())'));
function ppidOf(pid: number): number {
  const stat = procStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.ppid;
}
const args = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

/** Exited: gone, or a zombie not reaped yet. */
const gone = (pid: number): boolean => [undefined, 'Z'].includes(procStat(pid)?.state);

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Python that starts fork_server.py in zygote mode the way a helper does (a socketpair, the spawn
 * environment first), sends it malformed orders over that control socket — the only way in — and
 * prints each answer, then one good order's.
 */
const ZYGOTE_DRIVER = String.raw`
import array, json, os, socket, subprocess, sys, tempfile
source, home = sys.argv[1], tempfile.mkdtemp()
mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/"), "DEBUG_GYM_TERMINAL_ID": "0" * 16}
proc = subprocess.Popen([sys.executable, source, str(theirs.fileno()), home, "pytest,pdb", str(os.getpid()), "zygote"],
                        pass_fds=[theirs.fileno()], cwd=home, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
theirs.close()
mine.sendall(json.dumps(env).encode())
ready = json.loads(mine.recv(65536))
answers = {"ready": ready.get("zygote")}
work = os.path.realpath(tempfile.mkdtemp())
def ask(name, order, fds):
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    mine.sendmsg([json.dumps({"id": name, "server": order}).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno()] * fds))] if fds else [])
    answers[name] = json.loads(mine.recv(65536))
    return a
good = {"workdir": work, "env": dict(env, DEBUG_GYM_TERMINAL_ID="1" * 16), "marker": "DEBUG_GYM_TERMINAL_ID", "standbys": False}
ask("no-fd", good, 0)
ask("two-fds", good, 2)
ask("not-an-object", "x", 1)
ask("relative", dict(good, workdir="tmp"), 1)
ask("nul", dict(good, workdir="/tmp\u0000x"), 1)
ask("other-variable", dict(good, env=dict(env, PATH="/nowhere")), 1)
ask("extra-variable", dict(good, env=dict(env, EXTRA="1")), 1)
ask("other-marker", dict(good, env=dict(env, PATH="/nowhere"), marker="PATH"), 1)
server = ask("good", good, 1)
server.sendall(json.dumps(good["env"]).encode())
answers["server-ready"] = json.loads(server.recv(65536)).get("zygote")
print(json.dumps(answers))
proc.kill()
`;

afterAll(async () => {
  await Promise.all(terminals.map((term) => term.close()));
  await LocalZygote.closeAll();
});

describe('local zygote', () => {
  it("forks each later terminal's fork server, which shows its own working copy, marker and session", async () => {
    const [one, zygote] = await zygoteTerminal();
    const [two, again] = await zygoteTerminal();
    expect(again).toBe(zygote);
    const [first, second] = [await serverOf(one), await serverOf(two)];
    expect(first).not.toBe(second);
    for (const [term, server] of [[one, first], [two, second]] as const) {
      expect(ppidOf(server)).toBe(zygote);
      expect(args(server)).toContain(term.workdir);
      // Found by the marker at close (stray-processes.ts), as a started server is.
      const marker = (await term.run('printenv DEBUG_GYM_TERMINAL_ID')).output.trim();
      expect(readFileSync(`/proc/${server}/environ`, 'utf8').split('\0')).toContain(`DEBUG_GYM_TERMINAL_ID=${marker}`);
      expect(await forked(term, 'import os; print(os.getsid(0) == os.getppid(), os.getcwd())')).toBe(`False ${term.workdir}`);
    }
    await one.close();
    await until(() => gone(first), 'the closed terminal\'s server exits');
    expect(await forked(two, 'print(6 * 7)')).toBe('42');
  });

  it('kills at close a server the agent stopped (its helper going away does not end it)', async () => {
    const [term] = await zygoteTerminal();
    const server = await serverOf(term);
    await forked(term, 'import os, signal; os.kill(os.getppid(), signal.SIGSTOP)');
    await term.close();
    await until(() => gone(server), 'the stopped server is killed');
  });

  it('is not used once the agent changed its limits: the server is started, with the limits a cold run has', async () => {
    const [agent, zygote] = await zygoteTerminal();
    const tamper = `import resource; resource.prlimit(${zygote}, resource.RLIMIT_NOFILE, (64, 64))`;
    expect((await agent.run(`${python} -c '${tamper}'`)).exitCode).toBe(0);
    const victim = await terminal();
    expect(victim.forkServerOrigin).toEqual({ started: expect.stringContaining('resource limits') });
    const limit = 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))';
    const cold = (await victim.run(`${python} -c '${limit}'`)).output.trim();
    expect(await forked(victim, limit)).toBe(cold);
    expect(cold).not.toBe('(64, 64)');
    await until(() => gone(zygote), 'the tampered zygote leaves');
    const [, next] = await zygoteTerminal();
    expect(next).not.toBe(zygote);
  });

  it('is replaced when the agent stops or kills it; terminals start their own servers meanwhile', async () => {
    for (const signal of ['SIGSTOP', 'SIGKILL'] as const) {
      const [, zygote] = await zygoteTerminal();
      process.kill(zygote, signal);
      const meanwhile = await terminal();
      expect(meanwhile.forkServerOrigin).toHaveProperty('started');
      expect(await forked(meanwhile, 'print(1)')).toBe('1');
      await until(() => gone(zygote), `the ${signal === 'SIGSTOP' ? 'stopped' : 'killed'} zygote is gone`);
      const [, next] = await zygoteTerminal();
      expect(next).not.toBe(zygote);
    }
  });

  it("lets other terminals' running commands finish when it leaves (the agent kills it)", async () => {
    const [agent, zygote] = await zygoteTerminal();
    const [other] = await zygoteTerminal();
    const program = 'import time; time.sleep(1.5); print("finished")';
    const running = other.run(`${python} -c '${program}'`, { python: { args: ['-c', program], uses: ['pytest'] } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await agent.run(`kill -9 ${zygote}`);
    const result = await running;
    expect(result).toMatchObject({ exitCode: 0, output: 'finished\n', launch: { via: 'fork-server' } });
    expect(await forked(other, 'print(2)')).toBe('2');
  });

  it("kills at once a helper the agent stopped: a command running through it fails once (not run again), the next terminal starts its own", async () => {
    const [agent] = await zygoteTerminal();
    const [other] = await zygoteTerminal();
    const helper = ppidOf(ppidOf(await serverOf(other))); // the server's parent is the zygote, the zygote's the helper
    const log = join(other.workdir, 'log.txt');
    const program = `import time; open(${JSON.stringify(log)}, "a").write("ran\\n"); time.sleep(3)`;
    const running = other.run(`${python} -c '${program}'`, { python: { args: ['-c', program], uses: [] } });
    await until(() => existsSync(log), 'the command started');
    await agent.run(`kill -STOP ${helper}`);
    const result = await running;
    expect(result.exitCode).toBeNull();
    expect(result.output).toContain('it was not run again');
    expect(readFileSync(log, 'utf8')).toBe('ran\n');
    await until(() => gone(helper), 'the stopped helper is killed');
    expect((await terminal()).forkServerOrigin).toHaveProperty('started');
  });

  it("replaces a zygote whose helper's limits the agent changed (a server it starts would inherit them)", async () => {
    const [agent, zygote] = await zygoteTerminal();
    const helper = ppidOf(zygote);
    const tamper = `import os, resource; resource.prlimit(${helper}, resource.RLIMIT_NOFILE, (77, 77)); os.setpriority(os.PRIO_PROCESS, ${zygote}, 7)`;
    expect((await agent.run(`${python} -c '${tamper}'`)).exitCode).toBe(0);
    const victim = await terminal();
    expect(victim.forkServerOrigin).toHaveProperty('started');
    const limit = 'import os, resource; print(resource.getrlimit(resource.RLIMIT_NOFILE), os.getpriority(os.PRIO_PROCESS, 0))';
    const cold = (await victim.run(`${python} -c '${limit}'`)).output.trim();
    expect(await forked(victim, limit)).toBe(cold);
    expect(cold).not.toContain('(77, 77)');
    await until(() => gone(helper), 'the tampered helper is killed');
  });

  it("starts no server from a terminal's own helper whose limits the agent changed: its runs go cold, with a cold run's limits", async () => {
    const own = new LocalTerminal({ python, defaultTimeoutMs: 30_000, forkZygote: false });
    terminals.push(own);
    await own.start();
    await own.startForkServer();
    const server = await serverOf(own);
    const tamper = `import os, resource, signal; resource.prlimit(${ppidOf(server)}, resource.RLIMIT_NOFILE, (77, 77)); os.kill(${server}, signal.SIGKILL)`;
    expect((await own.run(`${python} -c '${tamper}'`)).exitCode).toBe(0);
    const limit = 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))';
    const cold = (await own.run(`${python} -c '${limit}'`)).output.trim();
    let run = await own.run(`${python} -c '${limit}'`, { python: { args: ['-c', limit], uses: [] } });
    for (let attempt = 0; attempt < 40 && !/resource limits/.test(run.launch?.reason ?? ''); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      run = await own.run(`${python} -c '${limit}'`, { python: { args: ['-c', limit], uses: [] } });
    }
    expect(run.launch).toEqual({ via: 'cold', reason: expect.stringContaining("the helper's resource limits") });
    expect(run.output.trim()).toBe(cold);
  });

  it('is closed once no terminal has used it for 10 s, with its directory', async () => {
    const [, zygote] = await zygoteTerminal();
    const directories = zygoteDirectories();
    expect(directories).not.toEqual([]);
    await Promise.all(terminals.splice(0).map((term) => term.close())); // every user of it, this test's and the earlier ones
    await until(() => gone(zygote), 'the unused zygote is closed', 30_000);
    for (const directory of directories) if (!zygoteDirectories().includes(directory)) expect(existsSync(directory)).toBe(false);
    // The kind was seen before: the next terminal starts a new one at once.
    const next = await terminal();
    expect(next.forkServerOrigin).toHaveProperty('started');
    expect(await next.zygoteReady()).toBe(true);
  }, 60_000);

  it('answers malformed orders on its control socket with a reason, and forks the next good one', () => {
    const source = fileURLToPath(new URL('../src/python/fork_server.py', import.meta.url));
    const run = spawnSync(python, ['-c', ZYGOTE_DRIVER, source], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const answers = JSON.parse(run.stdout) as Record<string, unknown>;
    const refused = (reason: string) => ({ id: expect.any(String), refused: expect.stringContaining(reason) });
    expect(answers).toEqual({
      ready: true,
      'no-fd': refused('expected 1 descriptor, got 0'),
      'two-fds': refused('expected 1 descriptor, got 2'),
      'not-an-object': refused('the request has no "server" object'),
      relative: refused('absolute real path'),
      nul: refused('bad request: ValueError'),
      'other-variable': refused("differs from the zygote's (PATH)"),
      'extra-variable': refused("variables differ from the zygote's"),
      'other-marker': refused('only a DEBUG_GYM_ marker may differ'),
      good: { id: 'good', pid: expect.any(Number) },
      'server-ready': expect.any(Number),
    });
  });
});

describe('local zygote lifetime', () => {
  const require = createRequire(import.meta.url);
  const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
  const leaseDir = mkdtempSync(join(tmpdir(), 'dg-zygote-leases-'));
  const owner = (mode: 'exit' | 'hold') =>
    spawn(process.execPath, [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'zygote-owner.ts'), mode], {
      env: { ...process.env, DEBUG_GYM_PYTHON: python, DEBUG_GYM_LEASE_DIR: leaseDir },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  const leases = (): string[] => (existsSync(leaseDir) ? readdirSync(leaseDir).filter((name) => name.endsWith('.json')) : []);
  afterAll(() => rmSync(leaseDir, { recursive: true, force: true }));
  const pidsOf = (child: ReturnType<typeof owner>, until: string): Promise<{ zygote: number; server: number; directory: string }> =>
    new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /PIDS (\d+) (\d+) (\S+)\n/.exec(out);
        if (match && out.includes(until)) resolve({ zygote: Number(match[1]), server: Number(match[2]), directory: match[3]! });
      });
      child.once('exit', (code) => reject(new Error(`the owner exited early (${String(code)}): ${out}`)));
    });

  it('lets the process exit by itself, and leaves no zygote, server or directory behind', async () => {
    const child = owner('exit');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const pids = await pidsOf(child, 'PIDS');
    expect(await exited).toBe(0);
    await until(() => gone(pids.zygote) && gone(pids.server), 'the zygote and its server go with the process');
    expect(existsSync(pids.directory)).toBe(false);
    expect(leases()).toEqual([]);
  }, 60_000);

  it('dies with a driver that is SIGKILLed', async () => {
    const child = owner('hold');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const pids = await pidsOf(child, 'READY');
    expect(gone(pids.zygote) || gone(pids.server)).toBe(false);
    child.kill('SIGKILL');
    await exited;
    await until(() => gone(pids.zygote) && gone(pids.server), 'the zygote and its server go with the driver');
    // No exit hook ran: the zygote's directory is left to `gc`, which its lease names.
    expect(existsSync(pids.directory)).toBe(true);
    await gc({ leaseDir, containers: false });
    expect(existsSync(pids.directory)).toBe(false);
    expect(leases()).toEqual([]);
  }, 60_000);
});
