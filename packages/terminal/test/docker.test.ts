/**
 * Docker backend against a real engine (no mocks). Needs a running engine (scripts/start-docker.sh)
 * and the image in DEBUG_GYM_DOCKER_IMAGE (default: the offline image from
 * scripts/build-offline-image.sh). Without them the suite is skipped with a warning, or fails when
 * DEBUG_GYM_REQUIRE_SANDBOXES=1 (CI).
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile, chmod } from 'node:fs/promises';
import { Agent } from 'node:http';
import { createRequire } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DebugGymError,
  NotADirectoryError,
  NotAFileError,
  PathNotFoundError,
  SandboxUnavailableError,
  SessionClosedError,
  TerminalNotStartedError,
  UnrecoverableTerminalError,
} from '@debug-gym/core';
import {
  DockerTerminal,
  type DockerTerminalOptions,
  defaultImageName,
  defaultImageRecipe,
  defaultImageTag,
  dockerAvailable,
  dockerRunId,
  gcContainers,
  liveContainerIds,
  parseMemory,
} from '../src/docker.js';
import { ensureImage, recipeTag } from '../src/docker.js';
import { ownerAlive, processStartTime, removeLiveContainersSync } from '../src/docker-engine.js';
import { localhostHostsFile } from '../src/docker-hosts-file.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus, imagePresent } from './sandbox-status.js';

const IMAGE = TEST_IMAGE;
const NO_PYTHON_IMAGE = 'debug-gym/test-no-python:latest';
const docker = new Docker();
const here = dirname(fileURLToPath(import.meta.url));

const status = await dockerTestStatus();
const runDocker = requireOrSkip('docker', status.available, status.reason);

/** Containers carrying this process's run label. */
async function ourContainers(): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`debug-gym.run=${dockerRunId}`] } });
}

const open: DockerTerminal[] = [];
function terminal(options: DockerTerminalOptions = {}): DockerTerminal {
  const term = new DockerTerminal({ image: IMAGE, defaultTimeoutMs: 20_000, ...options });
  open.push(term);
  return term;
}

describe('docker image recipe and options (no engine needed)', () => {
  it('tags the default image by a hash of its recipe', () => {
    const tag = defaultImageTag();
    expect(tag).toMatch(/^debug-gym\/python:[0-9a-f]{12}$/);
    expect(defaultImageTag()).toBe(tag);
    expect(defaultImageTag(defaultImageRecipe('python:3.11-slim'))).not.toBe(tag);
    expect(defaultImageRecipe()).toMatch(/^FROM python:3\.12-slim\n/);
    expect(defaultImageRecipe()).toContain('pip install pytest');
  });

  it('lets DEBUG_GYM_DOCKER_IMAGE override the default image', () => {
    expect(defaultImageName({ DEBUG_GYM_DOCKER_IMAGE: 'my/image:1' })).toBe('my/image:1');
    expect(defaultImageName({})).toBe(defaultImageTag());
  });

  it('parses memory limits', () => {
    expect(parseMemory(1234)).toBe(1234);
    expect(parseMemory('2g')).toBe(2 * 1024 ** 3);
    expect(parseMemory('512m')).toBe(512 * 1024 ** 2);
    expect(parseMemory('1.5G')).toBe(1.5 * 1024 ** 3);
    expect(parseMemory('64MiB')).toBe(64 * 1024 ** 2);
    expect(parseMemory('100k')).toBe(102400);
    expect(() => parseMemory('lots')).toThrow(RangeError);
    expect(() => parseMemory(-1)).toThrow(RangeError);
    expect(() => new DockerTerminal({ memory: 'x' })).toThrow(RangeError);
    expect(() => new DockerTerminal({ workdir: 'relative' })).toThrow(RangeError);
  });

  it('reports a missing engine as unavailable', async () => {
    const socket = join(tmpdir(), `dg-no-docker-${process.pid}.sock`);
    expect(await dockerAvailable({ docker: socket, timeoutMs: 500 })).toBe(false);
    const term = new DockerTerminal({ docker: socket, image: 'any:image' });
    const error = await term.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toContain('Docker engine running');
    expect(term.started).toBe(false);
  });

  it('tells live owners from dead ones', () => {
    expect(ownerAlive({ 'debug-gym.host': 'another-host', 'debug-gym.pid': '1' })).toBe(true);
    expect(ownerAlive({ 'debug-gym.host': hostname(), 'debug-gym.pid': 'x' })).toBe(false);
    expect(ownerAlive({ 'debug-gym.host': hostname(), 'debug-gym.pid': String(process.pid) })).toBe(true);
    expect(ownerAlive({ 'debug-gym.host': hostname(), 'debug-gym.pid': '999999999' })).toBe(false);
    const start = processStartTime(process.pid);
    if (start) {
      const labels = { 'debug-gym.host': hostname(), 'debug-gym.pid': String(process.pid), 'debug-gym.pid-start': '1' };
      expect(ownerAlive(labels)).toBe(false); // pid reused by another process
    }
  });
});

describe.runIf(runDocker)('DockerTerminal (real engine)', () => {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((term) => term.close().catch(() => undefined)));
  });

  afterAll(async () => {
    expect(await ourContainers()).toEqual([]);
    expect(liveContainerIds()).toEqual([]);
  });

  it('finding the hosts file leaves no engine request in flight, so a process that closed its terminals can exit', async () => {
    await terminal().start(); // the volume and its file exist from here on: the lookup below finds them
    const agent = new Agent({ keepAlive: true });
    try {
      // A new engine object has no cached answer: it asks the engine whether the file is there (HEAD).
      expect(await localhostHostsFile(new Docker({ agent } as Docker.DockerOptions), IMAGE)).toMatch(/\/hosts$/);
      // A socket still in `sockets` carries an unfinished request and keeps the event loop alive
      // (the engine drops it after ~5 minutes); a finished one moves to `freeSockets`.
      await expect.poll(() => Object.values(agent.sockets).flat().length, { timeout: 10_000 }).toBe(0);
    } finally {
      agent.destroy();
    }
  });

  it('runs commands and serves files through the helper', async () => {
    const term = terminal();
    expect(term.started).toBe(false);
    await expect(term.run('true')).rejects.toBeInstanceOf(TerminalNotStartedError);
    await term.start();
    expect(term.started).toBe(true);
    expect(term.kind).toBe('docker');
    expect(term.workdir).toBe('/workspace');
    expect(term.helperPython).toMatch(/^3\./);
    const result = await term.run('echo out; echo err >&2; printf "\\033[31mred\\033[0m\\r\\n"; exit 3');
    expect(result).toMatchObject({ exitCode: 3, output: 'out\nerr\nred\n', timedOut: false, droppedBytes: 0 });
    expect((await term.run('pwd')).output).toBe('/workspace\n');
    expect((await term.run('pwd', { cwd: '/tmp' })).output).toBe('/tmp\n');
    expect((await term.run('echo $FOO', { env: { FOO: 'bar' } })).output).toBe('bar\n');
    expect((await term.run('cat', { input: 'piped in' })).output).toBe('piped in');
    await expect(term.run('true', { cwd: 'missing-dir' })).rejects.toBeInstanceOf(PathNotFoundError);

    await term.writeFile('pkg/mod.py', 'x = 1\n');
    await term.writeFile('/tmp/bin.dat', new Uint8Array([0, 255, 10]));
    expect(Buffer.from(await term.readFile('pkg/mod.py')).toString()).toBe('x = 1\n');
    expect([...(await term.readFile('/tmp/bin.dat'))]).toEqual([0, 255, 10]);
    expect(await term.readDir('.')).toEqual([{ name: 'pkg', type: 'directory', executable: false }]);
    expect(await term.stat('pkg/mod.py')).toEqual({ type: 'file', size: 6, executable: false });
    expect(await term.stat('nope')).toBeNull();
    expect(await term.realPath('pkg/../pkg/mod.py')).toBe('/workspace/pkg/mod.py');
    await term.run('ln -s pkg/mod.py link.py && chmod +x pkg/mod.py && mkfifo fifo');
    expect(await term.stat('link.py')).toMatchObject({ type: 'symlink' });
    expect(await term.stat('fifo')).toMatchObject({ type: 'other' });
    expect(await term.realPath('link.py')).toBe('/workspace/pkg/mod.py');
    expect(await term.readDir('pkg')).toEqual([{ name: 'mod.py', type: 'file', executable: true }]);
    await expect(term.readFile('missing.txt')).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(term.readFile('pkg')).rejects.toBeInstanceOf(NotAFileError);
    await expect(term.readFile('fifo')).rejects.toBeInstanceOf(NotAFileError);
    await expect(term.readDir('pkg/mod.py')).rejects.toBeInstanceOf(NotADirectoryError);
    await expect(term.readDir('missing')).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(term.realPath('missing')).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(term.writeFile('pkg/mod.py/inner.txt', 'x')).rejects.toBeInstanceOf(NotADirectoryError);
    await expect(term.run('true', { cwd: 'pkg/mod.py' })).rejects.toBeInstanceOf(NotADirectoryError);
    await term.remove('pkg');
    await term.remove('pkg'); // no error when missing
    expect(await term.stat('pkg')).toBeNull();
    await term.remove('.'); // the working copy is emptied, not removed
    expect(await term.readDir('.')).toEqual([]);
    expect((await term.run('pwd')).output).toBe('/workspace\n');
  });

  it('times out, caps output and answers concurrent requests', async () => {
    const term = terminal({ maxOutputBytes: 1000 });
    await term.start();
    const slow = term.run('sleep 30; echo never', { timeoutMs: 300 });
    const fast = await Promise.all([term.run('echo a'), term.readDir('/'), term.run('echo b')]);
    expect(fast[0].output).toBe('a\n');
    expect(fast[2].output).toBe('b\n');
    const timedOut = await slow;
    expect(timedOut).toMatchObject({ exitCode: null, timedOut: true, output: '' });
    expect((await term.run('pgrep -f "^sleep 30" || echo none')).output).toBe('none\n');

    const big = await term.run('head -c 5000 /dev/zero | tr "\\0" x');
    expect(big.droppedBytes).toBe(4000);
    expect(big.output.startsWith('x'.repeat(1000))).toBe(true);
    expect(big.output).toContain('4000 more bytes were dropped');

    // A background job that keeps the pipe open does not hold the command.
    const bg = await term.run('sleep 30 & echo started');
    expect(bg.output).toBe('started\n');
    expect(bg.exitCode).toBe(0);
    // Invalid UTF-8 is decoded with replacement characters.
    expect((await term.run('printf "\\377ok"')).output).toBe('\uFFFDok');
  });

  it('copies a host directory in with modes and symlinks', async () => {
    const host = await mkdtemp(join(tmpdir(), 'dg-docker-copy-'));
    try {
      await mkdir(join(host, 'src', 'deep'), { recursive: true });
      await writeFile(join(host, 'src', 'deep', 'a.py'), 'print("a")\n');
      await writeFile(join(host, 'run.sh'), '#!/bin/sh\necho ran\n');
      await chmod(join(host, 'run.sh'), 0o755);
      await symlink('src/deep/a.py', join(host, 'link.py'));
      const term = terminal();
      await term.start();
      await term.copyIn(host);
      expect((await term.run('./run.sh && python3 link.py && ls -A | sort')).output).toBe('ran\na\nlink.py\nrun.sh\nsrc\n');
      expect(await term.stat('link.py')).toMatchObject({ type: 'symlink' });
      await term.copyIn(join(host, 'src'), 'copy/of/src');
      expect(Buffer.from(await term.readFile('copy/of/src/deep/a.py')).toString()).toBe('print("a")\n');
      // Past 8 MB the archive goes through the engine (putArchive) instead of the helper: same result.
      const blob = randomBytes(9 * 1024 * 1024);
      await mkdir(join(host, 'big'));
      await writeFile(join(host, 'big', 'blob.bin'), blob);
      await writeFile(join(host, 'big', 'tool.sh'), '#!/bin/sh\necho big tool\n', { mode: 0o755 });
      await symlink('blob.bin', join(host, 'big', 'link.bin'));
      await term.copyIn(join(host, 'big'), 'large');
      const sum = createHash('sha256').update(blob).digest('hex');
      expect((await term.run('sha256sum large/link.bin && ./large/tool.sh')).output).toBe(`${sum}  large/link.bin\nbig tool\n`);
      await expect(term.copyIn(join(host, 'does-not-exist'))).rejects.toBeInstanceOf(PathNotFoundError);
      await expect(term.copyIn(join(host, 'run.sh'))).rejects.toBeInstanceOf(NotADirectoryError);
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });

  it('applies resource limits, labels and no network', async () => {
    expect(await dockerAvailable({ docker: '/var/run/docker.sock' })).toBe(true);
    const term = terminal({
      memory: '256m',
      cpus: 1,
      pidsLimit: 256,
      labels: { 'com.example.task': 'limits' },
      docker: '/var/run/docker.sock',
    });
    await term.start();
    const pids = await term.run('cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max');
    expect(pids.output.trim()).toBe('256');
    const memory = await term.run('cat /sys/fs/cgroup/memory.max 2>/dev/null || cat /sys/fs/cgroup/memory/memory.limit_in_bytes');
    expect(memory.output.trim()).toBe(String(256 * 1024 * 1024));
    const cpu = await term.run(
      'cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo "$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"',
    );
    const [quota, period] = cpu.output.trim().split(/\s+/).map(Number);
    expect(quota! / period!).toBe(1);
    expect((await term.run('ls /sys/class/net')).output.trim()).toBe('lo');
    // A network namespace of its own (not the host's), where the loopback works and 'localhost' resolves.
    expect((await term.run('readlink /proc/self/ns/net')).output.trim()).not.toBe(readlinkSync('/proc/self/ns/net'));
    const loopback = await term.run(
      `${term.python} -c "import socket; s = socket.create_server(('localhost', 0)); socket.create_connection(s.getsockname()[:2], timeout=5); print('loopback ok')"`,
    );
    expect(loopback.output).toBe('loopback ok\n');

    const info = await docker.getContainer(term.containerId!).inspect();
    expect(info.Config.Labels).toMatchObject({
      app: 'debug-gym',
      'debug-gym.pid': String(process.pid),
      'debug-gym.run': dockerRunId,
      'debug-gym.host': hostname(),
      'com.example.task': 'limits',
    });
    expect(info.HostConfig.NetworkMode).toBe('none');
    expect(info.HostConfig.PidsLimit).toBe(256);
    expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
    expect(info.HostConfig.NanoCpus).toBe(1e9);
  });

  it('runs setup commands and fails clearly when one fails', async () => {
    const term = terminal({ setupCommands: ['echo configured > /tmp/setup.txt', 'mkdir -p lib'] });
    await term.start();
    expect((await term.run('cat /tmp/setup.txt && ls')).output).toBe('configured\nlib\n');
    await term.close();

    const failing = terminal({ setupCommands: ['echo before', 'echo "no such thing" >&2; exit 7', 'echo after'] });
    const error = await failing.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toContain('exit 7');
    expect((error as Error).message).toContain('exit code 7');
    expect((error as Error).message).toContain('no such thing');
    expect(failing.started).toBe(false);
    expect(await ourContainers()).toEqual([]);
  });

  it('reports a container killed mid-episode as unrecoverable; start() recovers', async () => {
    const term = terminal();
    await term.start();
    await term.writeFile('keep.txt', 'x');
    const session = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 10_000 });
    await session.read();
    // Expect the rejection before the kill: it may arrive before kill() itself returns.
    const pending = expect(term.run('sleep 20', { timeoutMs: 30_000 })).rejects.toBeInstanceOf(UnrecoverableTerminalError);
    await docker.getContainer(term.containerId!).kill();
    await pending;
    const error = await term.run('true').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnrecoverableTerminalError);
    expect((error as Error).message).toMatch(/container [0-9a-f]{12} (is gone|stopped)/);
    expect((error as Error).message).toContain('reset()');
    await expect(term.readFile('keep.txt')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
    await expect(term.openSession('python3', { prompt: '>>> ' })).rejects.toBeInstanceOf(UnrecoverableTerminalError);
    expect(session.closed).toBe(true);
    await term.start();
    expect((await term.run('echo back')).output).toBe('back\n');
    expect(await term.stat('keep.txt')).toBeNull();
  });

  it('survives a command that kills the helper process', async () => {
    // Only a root sandbox user can kill the root helper (see docker-limits attacks for the default).
    const term = terminal({ runAs: 'root' });
    await term.start();
    expect((await term.run('env')).output).not.toContain('DEBUG_GYM_HELPER');
    const killed = await term.run('kill -9 $PPID');
    expect(killed.exitCode).toBeNull();
    expect(killed.output).toContain('helper');
    expect((await term.run('echo still here')).output).toBe('still here\n');
    // The launch variables of PID 1 reach neither the first helper's commands nor a respawned one's.
    expect((await term.run('env')).output).not.toContain('DEBUG_GYM_HELPER');
    await term.writeFile('a.txt', 'a');
    const session = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 10_000 });
    await session.read();
    await term.run('pkill -9 -f debug-gym-helper; pkill -9 -f "exec(compile"; pkill -9 -f python; sleep 1');
    expect(Buffer.from(await term.readFile('a.txt')).toString()).toBe('a');
    // The session's PTY belonged to the killed helper: it ended with it, and a new one works.
    expect(session.closed).toBe(true);
    await expect(session.send('1')).rejects.toBeInstanceOf(SessionClosedError);
    const again = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 10_000 });
    await again.read();
    expect((await again.send('print(6 * 7)')).output).toBe('42\n');
    await again.close();
  });

  it('runs interactive sessions in PTYs the helper opens: no docker exec after start', async () => {
    const term = terminal();
    await term.start();
    const execs = async (): Promise<number> => (await docker.getContainer(term.containerId!).inspect()).ExecIDs?.length ?? 0;
    const execsAtStart = await execs();
    await term.writeFile('prog.py', 'x = 1\ny = x + 1\nprint("y is", y)\n');
    const pdb = await term.openSession('python3 -m pdb prog.py', { prompt: '(Pdb) ', timeoutMs: 10_000 });
    const first = await pdb.read();
    expect(first).toMatchObject({ promptSeen: true, exited: false, timedOut: false });
    expect(first.output).toContain('prog.py(1)<module>()');
    expect((await pdb.send('p 6 * 7')).output).toBe('42\n'); // no echo of the sent line
    expect((await pdb.send('n')).output).toContain('-> y = x + 1');
    const idle = await pdb.read({ timeoutMs: 200 });
    expect(idle).toMatchObject({ timedOut: true, promptSeen: false, output: '' });
    const end = await pdb.send('c', { timeoutMs: 10_000 });
    expect(end.output).toContain('y is 2');
    await pdb.close();
    expect(pdb.closed).toBe(true);
    await expect(pdb.send('p 1')).rejects.toBeInstanceOf(SessionClosedError);
    await pdb.close(); // idempotent

    await expect(term.openSession('true', { prompt: '$ ', cwd: 'missing' })).rejects.toBeInstanceOf(PathNotFoundError);
    await expect(term.openSession('true', { prompt: '$ ', cwd: 'prog.py' })).rejects.toBeInstanceOf(NotADirectoryError);
    const loop = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 10_000, env: { MARK: 'sess' }, cwd: '/tmp' });
    await loop.read();
    expect((await loop.send('import os; print(os.environ["MARK"], os.getcwd())')).output).toBe('sess /tmp\n');
    const busy = await loop.send('while True: pass\n', { timeoutMs: 300 });
    expect(busy.timedOut).toBe(true);
    const interrupted = await loop.interrupt({ timeoutMs: 5000 });
    expect(interrupted.promptSeen).toBe(true);
    expect(interrupted.output).toContain('KeyboardInterrupt');
    const exited = await loop.send('import sys; sys.exit(5)');
    expect(exited).toMatchObject({ exited: true, exitCode: 5, promptSeen: false });
    expect(loop.closed).toBe(true);
    await expect(loop.send('1')).rejects.toBeInstanceOf(SessionClosedError);

    // close() kills the whole process group inside the container.
    const sleeper = await term.openSession('sleep 1000 & sleep 1001; echo done', { prompt: '$ ', timeoutMs: 300 });
    await sleeper.read();
    const sleepers = 'ps -eo args | grep -c "^sleep 100[01]" || true';
    expect((await term.run(sleepers)).output.trim()).toBe('2');
    await sleeper.close();
    expect((await term.run(sleepers)).output.trim()).toBe('0');
    expect(await execs()).toBe(execsAtStart);

    // Sessions that end on their own or are closed leave no descriptor behind in the helper ($PPID).
    const helperFds = async (): Promise<string> => (await term.run('ls /proc/$PPID/fd | wc -l')).output.trim();
    const fdsBefore = await helperFds();
    for (let index = 0; index < 5; index++) {
      const ends = await term.openSession('echo bye', { prompt: '$ ', timeoutMs: 5000 });
      expect((await ends.read()).exited).toBe(true);
      const closed = await term.openSession('sleep 1000', { prompt: '$ ', timeoutMs: 100 });
      await closed.read();
      await closed.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await helperFds()).toBe(fdsBefore);
  });

  it('caps session output per read', async () => {
    const term = terminal({ maxOutputBytes: 2000 });
    await term.start();
    const session = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 10_000 });
    await session.read();
    const flood = await session.send('print("z" * 500000)');
    expect(flood.promptSeen).toBe(true);
    expect(flood.droppedBytes).toBeGreaterThan(490_000);
    expect(flood.output).toContain('more bytes were dropped');
    expect((await session.send('print(1)')).output).toBe('1\n');
    await session.close();
  });

  it('cleans up across start/close cycles', async () => {
    const term = terminal();
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) {
      await term.start(); // a second start() replaces the first container
      ids.add(term.containerId!);
      if (i === 0) await term.start();
      ids.add(term.containerId!);
      expect((await term.run(`echo ${i}`)).output).toBe(`${i}\n`);
      await term.close();
      await term.close(); // idempotent
    }
    expect(ids.size).toBe(11);
    expect(await ourContainers()).toEqual([]);
    expect(liveContainerIds()).toEqual([]);
  });

  it('runs 8 sandboxes in parallel', async () => {
    const terms = Array.from({ length: 8 }, () => terminal());
    const outputs = await Promise.all(
      terms.map(async (term, index) => {
        await term.start();
        const lines: string[] = [];
        for (let op = 0; op < 10; op++) {
          if (op % 2 === 0) lines.push((await term.run(`echo ${index}-${op}`)).output.trim());
          else await term.writeFile(`f${op}.txt`, String(op));
        }
        lines.push(String((await term.readDir('.')).length));
        await term.close();
        return lines.join(',');
      }),
    );
    outputs.forEach((line, index) => expect(line).toBe(`${index}-0,${index}-2,${index}-4,${index}-6,${index}-8,5`));
  });

  it('gc removes containers whose owner process is gone', async () => {
    const deadPid = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.on('exit', () => resolve(child.pid!));
    });
    const orphan = await docker.createContainer({
      Image: IMAGE,
      Cmd: ['sleep', '600'],
      Labels: { app: 'debug-gym', 'debug-gym.pid': String(deadPid), 'debug-gym.host': hostname(), 'debug-gym.run': 'dead-run' },
      HostConfig: { NetworkMode: 'none' },
    });
    await orphan.start();
    const mine = terminal();
    await mine.start();
    expect(await gcContainers()).toBeGreaterThanOrEqual(1);
    await expect(orphan.inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await mine.run('echo alive')).output).toBe('alive\n');
  });

  it('keeps the sandbox contained', async () => {
    const marker = join(tmpdir(), `dg-host-marker-${process.pid}`);
    await writeFile(marker, 'host secret');
    try {
      const term = terminal({ pidsLimit: 256, runAs: 'root' });
      await term.start();
      // Root in the container writes nothing outside the sized mounts (the root is read-only), nor on the host.
      const escape = await term.run('echo owned > /etc/dg-escape; mkdir -p /root/.ssh; cat /etc/dg-escape');
      expect(escape.output).toMatch(/Read-only file system[\s\S]*Read-only file system[\s\S]*No such file/);
      await expect(import('node:fs/promises').then((fs) => fs.access('/etc/dg-escape'))).rejects.toThrow();
      // The host's files (home, temp dir) are not visible.
      expect((await term.run(`test -e ${marker} && echo visible || echo hidden`)).output).toBe('hidden\n');
      expect((await term.run(`test -e ${here} && echo visible || echo hidden`)).output).toBe('hidden\n');
      // No network.
      const net = await term.run(
        'python3 -c "import socket; s=socket.socket(); s.settimeout(2); s.connect((\'1.1.1.1\', 80))" 2>&1; echo rc=$?',
      );
      expect(net.output).toMatch(/unreachable|rc=1/i);
      // A fork bomb is bounded by the pids limit.
      const bomb = await term.run(
        [
          'python3 - <<EOF',
          'import os, time',
          'count = 0',
          'for _ in range(2000):',
          '    try:',
          '        pid = os.fork()',
          '    except OSError:',
          '        break',
          '    if pid == 0:',
          '        time.sleep(30)',
          '        os._exit(0)',
          '    count += 1',
          'print(count)',
          'EOF',
        ].join('\n'),
        { timeoutMs: 30_000 },
      );
      const forked = Number(bomb.output.trim());
      expect(forked).toBeGreaterThan(10);
      expect(forked).toBeLessThan(256);
      // The terminal still answers once the sleepers are killed.
      await term.run('pkill -9 -x python3; true');
      expect((await term.run('echo ok')).output).toBe('ok\n');
      const id = term.containerId!;
      await term.close();
      await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    } finally {
      await rm(marker, { force: true });
    }
  });

  it('tells the agent when the process limit is used up', async () => {
    const term = terminal({ pidsLimit: 64 });
    await term.start();
    // Grab every free pid (retrying for 4 s, so pids freed meanwhile are taken too), then hold them.
    const bomb = [
      'import os, time',
      'deadline = time.time() + 4',
      'while time.time() < deadline:',
      '    try:',
      '        if os.fork() == 0:',
      '            time.sleep(15)',
      '            os._exit(0)',
      '    except OSError:',
      "        open('/tmp/full', 'w').close()",
      '        time.sleep(0.02)',
    ].join('\n');
    await term.writeFile('/tmp/bomb.py', bomb);
    // In the foreground: a finished command's leftovers would be killed at once.
    const holding = term.run('python3 /tmp/bomb.py >/dev/null 2>&1');
    // Until the bomb met the limit (a file operation needs no process), however long it takes to start.
    await expect.poll(() => term.stat('/tmp/full'), { timeout: 30_000, interval: 100 }).not.toBeNull();
    const starved = await term.run('echo hi');
    expect(starved.exitCode).toBeNull();
    expect(starved.output).toContain('could not start the command');
    expect(starved.output).toContain('process limit');
    // File operations need no new process and keep working.
    expect(Buffer.from(await term.readFile('/tmp/bomb.py')).toString()).toBe(bomb);
    await holding;
    const id = term.containerId!;
    await term.close();
    await expect(docker.getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });

  it('fails clearly for a missing image and an image without python', async () => {
    const missingImage = terminal({ image: 'debug-gym/does-not-exist:never' });
    await expect(missingImage.start()).rejects.toBeInstanceOf(SandboxUnavailableError);
    expect(missingImage.started).toBe(false);

    if (!(await imagePresent(NO_PYTHON_IMAGE))) {
      const base = await docker.createContainer({ Image: IMAGE, Cmd: ['sh', '-c', 'rm -f /usr/bin/python*'] });
      await base.start();
      await base.wait();
      await base.commit({ repo: 'debug-gym/test-no-python', tag: 'latest' });
      await base.remove({ force: true });
    }
    const noPython = terminal({ image: NO_PYTHON_IMAGE });
    const error = await noPython.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toMatch(/Python/);
    expect((error as Error).message).toContain('no Python interpreter found');
    expect(DebugGymError.hasCode(error, 'DG_TERMINAL_UNAVAILABLE')).toBe(true);
    expect(await ourContainers()).toEqual([]);
  });

  it('builds a recipe image once and reports build failures', async () => {
    const recipe = `FROM ${IMAGE}\nRUN echo built > /built.txt\n`;
    const tag = recipeTag(recipe, 'debug-gym/test-recipe');
    expect(tag).toMatch(/^debug-gym\/test-recipe:[0-9a-f]{12}$/);
    await docker.getImage(tag).remove({ force: true }).catch(() => undefined);
    try {
      const [first, second] = await Promise.all([
        ensureImage(recipe, { repository: 'debug-gym/test-recipe' }),
        ensureImage(recipe, { repository: 'debug-gym/test-recipe' }),
      ]);
      expect(first).toBe(tag);
      expect(second).toBe(tag);
      expect(await ensureImage(recipe, { repository: 'debug-gym/test-recipe' })).toBe(tag); // found, not rebuilt
      const term = terminal({ image: tag });
      await term.start();
      expect(term.image).toBe(tag);
      expect((await term.run('cat /built.txt')).output).toBe('built\n');
      await term.close();
    } finally {
      await docker.getImage(tag).remove({ force: true }).catch(() => undefined);
    }
    const failing = ensureImage(`FROM ${IMAGE}\nRUN echo broken step && exit 3\n`, { repository: 'debug-gym/test-recipe' });
    await expect(failing).rejects.toBeInstanceOf(SandboxUnavailableError);
    await expect(failing).rejects.toThrow(/non-zero code: 3/);
  });

  it('removes live containers on a handled signal and synchronously at exit', async () => {
    const keepAlive = (): void => undefined; // another SIGHUP listener: ours must not re-raise the signal
    process.on('SIGHUP', keepAlive);
    try {
      const term = terminal();
      await term.start();
      const id = term.containerId!;
      expect(liveContainerIds()).toContain(id);
      process.emit('SIGHUP', 'SIGHUP');
      await expect.poll(() => liveContainerIds().length).toBe(0);
      await expect.poll(async () => (await docker.getContainer(id).inspect().then(() => 'there', () => 'gone'))).toBe('gone');
      await expect(term.run('true')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
      await term.close(); // the container is already gone: fine

      const other = terminal();
      await other.start();
      const otherId = other.containerId!;
      removeLiveContainersSync();
      await expect(docker.getContainer(otherId).inspect()).rejects.toMatchObject({ statusCode: 404 });
      await other.close();
    } finally {
      process.removeListener('SIGHUP', keepAlive);
    }
  });

  describe('process-level cleanup', () => {
    const require = createRequire(import.meta.url);
    const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
    const childScript = join(here, 'fixtures', 'docker-owner.ts');

    /** Start a child Node process owning one sandbox; resolves with it and its container id. */
    function startOwner(mode: string): Promise<{ child: ReturnType<typeof spawn>; id: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [viteNode, '--config', join(here, '..', 'vitest.config.ts'), childScript, mode], {
          env: { ...process.env, DEBUG_GYM_DOCKER_IMAGE: IMAGE },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /CONTAINER (\w+)/.exec(out);
          if (match) resolve({ child, id: match[1]! });
        });
        child.on('exit', (code) => reject(new Error(`owner exited early (${code}): ${out}`)));
      });
    }

    async function gone(id: string, withinMs: number): Promise<boolean> {
      const deadline = Date.now() + withinMs;
      for (;;) {
        try {
          await docker.getContainer(id).inspect();
        } catch {
          return true;
        }
        if (Date.now() >= deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }

    it.each(['SIGTERM', 'SIGINT', 'exit', 'SIGKILL'])('removes the container when the owner ends with %s', async (how) => {
      const { child, id } = await startOwner(how === 'exit' ? 'exit' : 'wait');
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
      if (how !== 'exit') child.kill(how as NodeJS.Signals);
      const status = await exited;
      if (how !== 'exit') expect(status).toBe(how); // default signal behaviour is restored and re-raised
      // Handled endings remove the container before the process is gone; after SIGKILL the helper
      // sees its stdin close and stops the container, which the engine then auto-removes.
      expect(await gone(id, how === 'SIGKILL' ? 10_000 : 0)).toBe(true);
    });
  });
});
