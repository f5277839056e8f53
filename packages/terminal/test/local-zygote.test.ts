/**
 * The local backend's zygote (local-zygote.ts, fork_server.py in zygote mode): real Python, real
 * processes. What its servers run is checked by the whole fork-server suite ('local-zygote' there);
 * here: where they come from, that they go with their terminal, and that an agent who tampers with
 * the zygote (same user: it can) or writes junk to its socket only makes terminals start their own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalTerminal } from '../src/local-terminal.js';
import { LocalZygote } from '../src/local-zygote.js';

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

/** A terminal whose fork server the zygote forked (the zygote is started first when there is none). */
async function zygoteTerminal(): Promise<[LocalTerminal, number]> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const term = await terminal();
    const origin = term.forkServerOrigin;
    if (origin && 'zygote' in origin) return [term, origin.zygote];
    expect(await term.zygoteReady()).toBe(true);
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
const ppidOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};
const args = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const socketOf = (zygote: number): string => args(zygote).at(-1) as string;

function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return true;
  }
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Python that sends the zygote one request of a kind and prints its answer. */
const JUNK = String.raw`
import array, json, os, socket, sys
path, kind = sys.argv[1], sys.argv[2]
conn = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
conn.connect(path)
a, b = socket.socketpair()
fds = {"no-fd": [], "two-fds": [a.fileno(), b.fileno()]}.get(kind, [a.fileno()])
body = {
    "garbage": b"\xff\x00 not json",
    "array": b"[1, 2]",
    "relative": json.dumps({"workdir": "tmp", "env": {}}).encode(),
    "nul": json.dumps({"workdir": "/tmp\u0000x", "env": {}}).encode(),
    "env": json.dumps({"workdir": "/tmp", "env": {"PATH": "/nowhere"}}).encode(),
    "no-fd": json.dumps({"workdir": "/tmp", "env": {}}).encode(),
    "two-fds": json.dumps({"workdir": "/tmp", "env": {}}).encode(),
}[kind]
conn.sendmsg([body], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else [])
print(conn.recv(65536).decode())
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

  it('refuses junk on its socket with a reason and goes on serving', async () => {
    const [, zygote] = await zygoteTerminal();
    const expected: Record<string, string> = {
      garbage: 'unreadable request',
      array: 'not a JSON object',
      relative: 'absolute real path',
      nul: 'bad request: ValueError',
      env: "variables differ from the zygote's",
      'no-fd': 'expected 1 descriptor, got 0',
      'two-fds': 'expected 1 descriptor, got 2',
    };
    for (const [kind, reason] of Object.entries(expected)) {
      const run = spawnSync(python, ['-c', JUNK, socketOf(zygote), kind], { encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout)).toEqual({ refused: expect.stringContaining(reason) });
    }
    const [, still] = await zygoteTerminal();
    expect(still).toBe(zygote);
  });
});

describe('local zygote lifetime', () => {
  const require = createRequire(import.meta.url);
  const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
  const owner = (mode: 'exit' | 'hold') =>
    spawn(process.execPath, [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'zygote-owner.ts'), mode], {
      env: { ...process.env, DEBUG_GYM_PYTHON: python },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
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
  }, 60_000);

  it('dies with a driver that is SIGKILLed', async () => {
    const child = owner('hold');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const pids = await pidsOf(child, 'READY');
    expect(gone(pids.zygote) || gone(pids.server)).toBe(false);
    child.kill('SIGKILL');
    await exited;
    await until(() => gone(pids.zygote) && gone(pids.server), 'the zygote and its server go with the driver');
  }, 60_000);
});
