/**
 * The Docker sandbox's default limits and its non-root user, against a real engine: the container
 * spec, who owns what the helper writes, file operations with the sandbox user's permissions,
 * clean-up after a command that spares open sessions, and big copies into the tmpfs working copy.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { WorkspaceError } from '@debug-gym/core';
import { DockerTerminal, type DockerTerminalOptions, ensureImage } from '../src/docker.js';
import { HELPER_CAPABILITIES, hostLimits } from '../src/docker-limits.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';

const docker = new Docker();
const status = await dockerTestStatus();
const runDocker = requireOrSkip('docker', status.available, status.reason);
const open: DockerTerminal[] = [];

function terminal(options: DockerTerminalOptions = {}): DockerTerminal {
  const term = new DockerTerminal({ image: TEST_IMAGE, defaultTimeoutMs: 30_000, ...options });
  open.push(term);
  return term;
}

describe('docker limits (no engine needed)', () => {
  it('turns options into HostConfig fields and refuses bad ones', () => {
    const config = hostLimits({ memory: '1g', cpus: 0.5, disk: '300m', runAs: { uid: 2000, gid: 3000 } }, '/workspace', false);
    expect(config).toMatchObject({ Memory: 1024 ** 3, MemorySwap: 1024 ** 3, NanoCpus: 5e8, CapDrop: ['ALL'] });
    expect(config.Tmpfs?.['/workspace']).toBe(`rw,exec,nosuid,nodev,mode=0755,size=${300 * 1024 ** 2},uid=2000,gid=3000`);
    // A read-only root (the default): every writable path a sized tmpfs, no layer quota needed.
    expect(config.ReadonlyRootfs).toBe(true);
    expect(config.ReadonlyPaths).toEqual(['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger', '/sys/fs/cgroup']);
    expect(config.Tmpfs).toMatchObject({
      '/tmp': `rw,exec,nosuid,nodev,mode=1777,size=${512 * 1024 ** 2}`,
      '/var/tmp': `rw,exec,nosuid,nodev,mode=1777,size=${64 * 1024 ** 2}`,
      '/run': `rw,exec,nosuid,nodev,mode=0755,size=${16 * 1024 ** 2}`,
    });
    const baked = hostLimits({ workdir: '/testbed', tmpfs: { '/root': '256m', '/var/tmp': '1m' } }, '/testbed', true);
    expect(baked.StorageOpt).toBeUndefined();
    expect(baked.Tmpfs).toMatchObject({ '/testbed': `rw,exec,nosuid,nodev,mode=0755,size=${1024 ** 3},uid=10001,gid=10001`, '/root': `rw,exec,nosuid,nodev,mode=1777,size=${256 * 1024 ** 2}`, '/var/tmp': 'rw,exec,nosuid,nodev,mode=1777,size=1048576' });
    expect(() => hostLimits({ tmpfs: { 'var/tmp': '1m' } }, '/workspace', false)).toThrow(RangeError);
    expect(() => hostLimits({ tmpfs: { '/tmp': '1m' } }, '/workspace', false)).toThrow(RangeError);
    expect(() => new DockerTerminal({ workdirTmpfs: false })).toThrow(/readOnlyRoot: false/);
    // A writable root: the layer sized where the engine can, else only the default working copy on a tmpfs.
    const quota = hostLimits({ workdir: '/testbed', readOnlyRoot: false }, '/testbed', true);
    expect(quota.StorageOpt).toEqual({ size: String(1024 ** 3) });
    expect(quota.ReadonlyRootfs).toBeUndefined();
    expect(quota.Tmpfs?.['/testbed']).toBeUndefined();
    const none = hostLimits({ memory: false, cpus: false, disk: false, readOnlyRoot: false }, '/workspace', false);
    expect(none.Memory).toBeUndefined();
    expect(none.NanoCpus).toBeUndefined();
    expect(Object.keys(none.Tmpfs ?? {})).toEqual(['/tmp']);
    // disk: false on a read-only root: the working copy is a tmpfs bounded only by memory.
    expect(hostLimits({ disk: false }, '/workspace', false).Tmpfs?.['/workspace']).toBe('rw,exec,nosuid,nodev,mode=0755,uid=10001,gid=10001');
    expect(() => new DockerTerminal({ runAs: { uid: 0, gid: 0 } })).toThrow(RangeError);
    expect(() => new DockerTerminal({ cpus: 0 })).toThrow(RangeError);
    expect(() => new DockerTerminal({ tmpSize: 'lots' })).toThrow(RangeError);
  });
});

describe.runIf(runDocker)('docker limits (real engine)', () => {
  afterEach(async () => {
    await Promise.all(open.splice(0).map((term) => term.close().catch(() => undefined)));
  });

  it('creates containers with the default limits', async () => {
    const term = terminal();
    await term.start();
    const { HostConfig } = await docker.getContainer(term.containerId!).inspect();
    expect(HostConfig).toMatchObject({
      Memory: 2 * 1024 ** 3,
      MemorySwap: 2 * 1024 ** 3,
      NanoCpus: 1e9,
      PidsLimit: 1024,
      ShmSize: 64 * 1024 ** 2,
      CapDrop: ['ALL'],
      CapAdd: HELPER_CAPABILITIES,
      SecurityOpt: ['no-new-privileges'],
    });
    expect(HostConfig.ReadonlyRootfs).toBe(true);
    expect(Object.keys(HostConfig.Tmpfs ?? {}).sort()).toEqual(['/run', '/tmp', '/var/tmp', '/workspace']);
    const mounts = await term.run('grep -E " /(tmp|workspace|dev/shm|var/tmp|run|etc/hosts) " /proc/mounts | cut -d" " -f2,3,4 | cut -d, -f1 | sort');
    expect(mounts.output).toBe('/dev/shm tmpfs rw\n/etc/hosts ext4 ro\n/run tmpfs rw\n/tmp tmpfs rw\n/var/tmp tmpfs rw\n/workspace tmpfs rw\n'.replace('ext4', mounts.output.match(/\/etc\/hosts (\S+)/)?.[1] ?? 'ext4'));
    expect((await term.run('grep " / " /proc/mounts | cut -d" " -f4 | cut -d, -f1')).output).toBe('ro\n');
    // localhost resolves although the root is read-only and the engine made no /etc/hosts (no network).
    expect((await term.run('getent hosts localhost | head -1')).output).toMatch(/^(127\.0\.0\.1|::1)\s+localhost/);
    expect((await term.run('ls -ld /run/lock | cut -c1-10')).output).toBe('drwxrwxrwt\n');
    const who = await term.run('id -u; id -g; id -G; echo "$HOME"; test -w "$HOME" && echo writable');
    expect(who.output).toBe('10001\n10001\n10001\n/tmp/home\nwritable\n');
  });

  it('gives the sandbox user what the helper writes, copies and creates', async () => {
    const host = await mkdtemp(join(tmpdir(), 'dg-own-'));
    try {
      await mkdir(join(host, 'pkg'));
      await writeFile(join(host, 'pkg', 'mod.py'), 'x = 1\n');
      await writeFile(join(host, 'frozen.py'), 'old\n', { mode: 0o444 });
      const term = terminal();
      await term.start();
      await term.copyIn(host);
      await term.writeFile('new/dir/file.txt', 'hello');
      const owners = await term.run('stat -c "%u:%g %n" . pkg pkg/mod.py new new/dir new/dir/file.txt');
      expect(owners.output.trim().split('\n').map((line) => line.split(' ')[0])).toEqual(Array(6).fill('10001:10001'));
      const edit = await term.run('echo "y = 2" >> pkg/mod.py && rm new/dir/file.txt && echo edited');
      expect(edit.output).toBe('edited\n');
      // A read-only file is written as root would write it, its mode kept.
      await term.writeFile('frozen.py', 'new\n');
      expect((await term.run('stat -c %a frozen.py; cat frozen.py')).output).toBe('444\nnew\n');
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });

  it("serves file operations with the sandbox user's permissions, so planted symlinks gain nothing", async () => {
    const term = terminal();
    await term.start();
    await term.run('ln -s /etc/shadow shadow && ln -s /etc/passwd passwd && ln -s /root rootdir');
    await expect(term.readFile('shadow')).rejects.toBeInstanceOf(WorkspaceError);
    await expect(term.writeFile('passwd', 'evil::0:0::/:/bin/sh\n')).rejects.toThrow(/Permission denied|Read-only file system/);
    await expect(term.readDir('rootdir')).rejects.toThrow(/Permission denied/);
    expect((await term.run('head -c 5 /etc/passwd')).output).toBe('root:');
    // Root-owned files of the image stay root's.
    await expect(term.writeFile('/etc/hosts', 'x')).rejects.toThrow(/Permission denied|Read-only file system/);
  });

  it('copies a working copy baked into the image into its sized tmpfs, owns it, and runs set-up commands as root', async () => {
    const image = await ensureImage(
      `FROM ${TEST_IMAGE}\nRUN mkdir -p /srv/repo/pkg && echo 'x = 1' > /srv/repo/pkg/mod.py && chmod 0555 /srv/repo/pkg && ln -s pkg/mod.py /srv/repo/link.py\n`,
      { repository: 'debug-gym/test-image-baked' },
    );
    const term = terminal({ image, workdir: '/srv/repo', disk: '8m', setupCommands: ['mkdir -p sub && echo x > sub/f', 'echo root > /etc/dg-setup || true'] });
    await term.start();
    const check = await term.run('stat -c "%u %a %n" . pkg pkg/mod.py sub/f; readlink link.py; cat link.py; test -e /etc/dg-setup || echo "no /etc/dg-setup"; grep " /srv/repo " /proc/mounts | cut -d" " -f3');
    expect(check.output).toBe('10001 755 .\n10001 555 pkg\n10001 644 pkg/mod.py\n10001 644 sub/f\nlink.py\npkg/mod.py\nx = 1\nno /etc/dg-setup\ntmpfs\n'.replace('link.py\npkg', 'pkg'));
    // The copy is the agent's, and sized: writing past `disk` is refused, and the episode goes on.
    const fill = await term.run('chmod u+w pkg && echo "x = 2" > pkg/new.py; head -c 20M /dev/zero > big; echo "exit $?"; rm -f big; cat pkg/new.py');
    expect(fill.output).toMatch(/No space left on device[\s\S]*exit 1\nx = 2\n$/);
    // A fork copies this working copy, not the image's.
    await term.writeFile('pkg/mod.py', 'x = 3\n');
    const clone = await term.fork();
    open.push(clone);
    expect((await clone.run('cat pkg/mod.py; ls')).output).toBe('x = 3\nlink.py\npkg\nsub\n');
  });

  it('runs set-up commands that write into the image with readOnlyRoot: false', async () => {
    const term = terminal({ workdir: '/srv/repo', readOnlyRoot: false, setupCommands: ['mkdir -p sub && echo x > sub/f && echo root > /etc/dg-setup'] });
    await term.start();
    const check = await term.run('stat -c %u . sub sub/f; cat /etc/dg-setup; grep -c " /srv/repo " /proc/mounts || true');
    expect(check.output).toBe('10001\n10001\n10001\nroot\n0\n');
  });

  it("runs commands as the sandbox user whatever the image's USER", async () => {
    const image = await ensureImage(`FROM ${TEST_IMAGE}\nUSER 1000:1000\n`, { repository: 'debug-gym/test-image-user' });
    const term = terminal({ image });
    await term.start();
    expect((await term.run('id -u; echo x > made.txt && cat made.txt')).output).toBe('10001\nx\n');
  });

  it('runs every command as root with runAs: root', async () => {
    const term = terminal({ runAs: 'root' });
    await term.start();
    expect((await term.run('id -u')).output).toBe('0\n');
  });

  it('kills what a command left behind but spares open sessions and running commands', async () => {
    const term = terminal();
    await term.start();
    const session = await term.openSession('python3 -q', { prompt: '>>> ', timeoutMs: 20_000 });
    await session.read();
    expect((await session.send('import os; print(os.getuid(), os.geteuid())')).output).toBe('10001 10001\n');
    await session.send('import subprocess; child = subprocess.Popen(["sleep", "1000"])');
    const running = term.run('sleep 1000 & wait', { timeoutMs: 60_000 });
    await expect.poll(async () => (await term.run('ps -eo args | grep -c "^sleep 1000" || true')).output).toBe('2\n');
    await term.run('(setsid sleep 2000 &) ; sleep 2000 & echo left');
    // The session, its child and the still running command are untouched; the leftovers are gone.
    expect((await term.run('ps -eo args | grep -c "^sleep [12]000" || true')).output).toBe('2\n');
    expect((await session.send('print(child.poll())')).output).toBe('None\n');
    await term.run('pkill -x sleep');
    await running;
    await session.close();
  });

  it('copies a big tree (streamed through the helper) into the tmpfs working copy', async () => {
    const host = await mkdtemp(join(tmpdir(), 'dg-big-'));
    try {
      const blob = randomBytes(12 * 1024 * 1024);
      await writeFile(join(host, 'blob.bin'), blob);
      await mkdir(join(host, 'src'));
      await writeFile(join(host, 'src', 'a.py'), 'a = 1\n');
      const term = terminal();
      await term.start();
      await term.copyIn(host);
      const sum = await term.run('sha256sum blob.bin | cut -d" " -f1; stat -c %u src/a.py');
      expect(sum.output).toBe(`${createHash('sha256').update(blob).digest('hex')}\n10001\n`);
    } finally {
      await rm(host, { recursive: true, force: true });
    }
  });
});
