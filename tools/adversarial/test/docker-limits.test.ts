import type { Terminal } from '@debug-gym/core';
import { type BackendName, availableBackends } from '@debug-gym/test-utils';
import { afterAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';

/**
 * Resource bombs and attacks on the sandbox's own machinery, by an agent that runs code as the
 * sandbox user. Each bomb is bounded (a few GiB at most), so a backend that does not hold it
 * fails the test instead of taking the machine down.
 */
const backends = await availableBackends();

/** Attacks whose code applies to every sandbox; the rest need the Docker backend's limits for now. */
const NEUTRAL: BackendName[] = ['docker', 'bubblewrap'];
const DOCKER: BackendName[] = ['docker'];

/** The step after an attack: it must run, fork and answer as usual. */
async function nextStepWorks(terminal: Terminal): Promise<void> {
  const next = await terminal.run('sh -c "echo forked" && echo next', { timeoutMs: 60_000 });
  expect(next.output).toBe('forked\nnext\n');
  expect(next.exitCode).toBe(0);
}

describe.each(backends.filter((backend) => DOCKER.includes(backend.name)))('default limits on $name', (backend) => {
  const terminal = backend.create();
  afterAll(() => terminal.close());

  attack('memory bomb (3 GiB, touched) is stopped by the memory limit', backend.name, async () => {
    await terminal.start();
    const bomb = await terminal.run(
      'python3 -c "\nimport sys\nheld = []\nfor step in range(24):\n    held.append(bytearray(128 << 20))\n    print((step + 1) * 128, flush=True)\n"',
      { timeoutMs: 120_000 },
    );
    expect(bomb.output).not.toMatch(/^3072$/m);
    expect(bomb.exitCode).not.toBe(0);
    await nextStepWorks(terminal);
  });

  attack('fork bomb is contained and the next step still works', backend.name, async () => {
    await terminal.start();
    const bomb = await terminal.run('bomb() { bomb | bomb & }; bomb; sleep 3', { timeoutMs: 20_000 });
    expect(bomb.timedOut || bomb.exitCode !== null).toBe(true);
    await nextStepWorks(terminal);
  });

  attack('/tmp fill-up (1.5 GiB) stops at its cap', backend.name, async () => {
    await terminal.start();
    const fill = await terminal.run('dd if=/dev/zero of=/tmp/fill bs=1M count=1536 2>&1; echo "size $(stat -c %s /tmp/fill)"', {
      timeoutMs: 120_000,
    });
    expect(fill.output).toMatch(/No space left on device/);
    const size = Number(/size (\d+)/.exec(fill.output)?.[1]);
    expect(size).toBeLessThanOrEqual(1024 ** 3);
    await terminal.run('rm -f /tmp/fill');
    await nextStepWorks(terminal);
  });

  attack('/dev/shm fill-up (1 GiB) stops at its cap', backend.name, async () => {
    await terminal.start();
    const fill = await terminal.run('dd if=/dev/zero of=/dev/shm/fill bs=1M count=1024 2>&1; echo "size $(stat -c %s /dev/shm/fill)"', {
      timeoutMs: 120_000,
    });
    expect(fill.output).toMatch(/No space left on device/);
    expect(Number(/size (\d+)/.exec(fill.output)?.[1])).toBeLessThanOrEqual(256 * 1024 ** 2);
    await nextStepWorks(terminal);
  });

  attack('working copy fill-up (3 GiB) stops at the disk quota', backend.name, async () => {
    await terminal.start();
    const fill = await terminal.run('dd if=/dev/zero of=fill.bin bs=1M count=3072 2>&1; echo "size $(stat -c %s fill.bin)"', {
      timeoutMs: 120_000,
    });
    expect(fill.output).toMatch(/No space left on device/);
    expect(Number(/size (\d+)/.exec(fill.output)?.[1])).toBeLessThanOrEqual(2 * 1024 ** 3);
    await terminal.remove('fill.bin');
    await nextStepWorks(terminal);
  });

  attack('commands run as a non-root user with no capabilities', backend.name, async () => {
    await terminal.start();
    const who = await terminal.run('id -u; grep -E "^Cap(Eff|Prm|Amb):" /proc/self/status');
    const [uid, ...caps] = who.output.trim().split('\n');
    expect(Number(uid)).not.toBe(0);
    expect(caps).toEqual(['CapPrm:\t0000000000000000', 'CapEff:\t0000000000000000', 'CapAmb:\t0000000000000000']);
  });

  attack('kill -9 -1 and pkill -f python do not take down the helper', backend.name, async () => {
    await terminal.start();
    const all = await terminal.run('kill -9 -1; echo survived');
    expect(all.output).toContain('survived');
    // pkill also kills the shell running it (its command line matches): only the helper must live.
    const byName = await terminal.run('pkill -9 -f python; pkill -9 -f debug-gym; pkill -9 -f exec.compile');
    expect(byName.output).not.toMatch(/killed the sandbox helper/);
    await nextStepWorks(terminal);
  });
});

describe.each(backends.filter((backend) => DOCKER.includes(backend.name)))('helper requests on $name', (backend) => {
  const terminal = backend.create();
  afterAll(() => terminal.close());

  attack('a FIFO planted where the file tools write or read does not hang the sandbox', backend.name, async () => {
    await terminal.start();
    await terminal.run('mkfifo pipe');
    const write = terminal.writeFile('pipe', 'data');
    const read = terminal.readFile('pipe');
    await expect(write).rejects.toThrow(/pipe/);
    await expect(read).rejects.toThrow(/pipe/);
    await terminal.writeFile('after.txt', 'still served');
    expect(Buffer.from(await terminal.readFile('after.txt')).toString()).toBe('still served');
  }, 30_000);
});

describe.each(backends.filter((backend) => NEUTRAL.includes(backend.name)))('leftovers on $name', (backend) => {
  const terminal = backend.create();
  afterAll(() => terminal.close());

  attack('a fork loop that outlives its command is gone and the next command can fork', backend.name, async () => {
    await terminal.start();
    // Detached (setsid, double fork) so neither the command's process group nor its session holds it.
    const start = await terminal.run("(setsid sh -c 'for i in $(seq 2000); do sleep 1000 & done; sleep 1000' >/dev/null 2>&1 &); echo started");
    expect(start.output).toBe('started\n');
    await nextStepWorks(terminal);
    const left = await terminal.run('ps -eo args | grep -c "^sleep 1000" || true');
    expect(left.output.trim()).toBe('0');
  });

  attack('a background job with setsid does not survive its command', backend.name, async () => {
    await terminal.start();
    await terminal.run("setsid sh -c 'while :; do sleep 0.2; done' >/dev/null 2>&1 < /dev/null & echo started");
    const left = await terminal.run('ps -eo args | grep -c "^sh -c while" || true');
    expect(left.output.trim()).toBe('0');
  });
});

/** Pseudo file systems that hold no bulk data (their writes are limited by the kernel, not by a size: mqueue by RLIMIT_MSGQUEUE, 800 KiB a user). */
const PSEUDO_FS = ['proc', 'sysfs', 'devpts', 'mqueue', 'cgroup', 'cgroup2'];
/** Paths an agent may try to fill, beyond the sized working copy, /tmp and /dev/shm. */
const FILL_TARGETS = ['/var/tmp', '/var', '/var/lock', '/run', '/run/lock', '/etc', '/opt', '/root', '/srv', '/usr/local', '/usr/local/lib/python3*/site-packages', '/usr/lib/python3*/site-packages', '/usr/lib/python3/dist-packages', '/', '/dev', '$HOME'];
const MiB = 1024 ** 2;

describe.each(backends.filter((backend) => NEUTRAL.includes(backend.name)))('the host is not the agent disk on $name', (backend) => {
  const terminal = backend.create();
  afterAll(() => terminal.close());

  attack('every writable mount is a sized tmpfs (or a pseudo file system)', backend.name, async () => {
    await terminal.start();
    // Device nodes bound from the host (bubblewrap's /dev/null, ...) hold no data: left out.
    const mounts = await terminal.run('while read -r device target rest; do [ -c "$target" ] || echo "$device $target $rest"; done < /proc/self/mounts');
    // The last mount at a path is the one seen there (the engine remounts some read-only over others).
    const seen = new Map(mounts.output.trim().split('\n').map((line) => line.split(' ')).map((fields) => [fields[1], fields]));
    const writable = [...seen.values()].filter(([, , , options]) => (options ?? '').split(',').includes('rw'));
    const unsized = writable.filter(([, , type, options]) => !PSEUDO_FS.includes(type ?? '') && !(type === 'tmpfs' && /(^|,)size=/.test(options ?? '')));
    expect(unsized.map((fields) => fields.slice(1, 4).join(' '))).toEqual([]);
    // The sized ones: the working copy, /tmp, /dev/shm, and (Docker) /var/tmp, /run and the engine's /dev.
    expect(writable.map(([, target]) => target)).toEqual(expect.arrayContaining([terminal.workdir, '/tmp', '/dev/shm']));
    // And no directory of the root file system is writable (it is read-only, or a tmpfs of root's).
    const dirs = await terminal.run('find / -xdev \\( -path /proc -o -path /sys \\) -prune -o -type d -writable -print 2>/dev/null', { timeoutMs: 120_000 });
    const mountPoints = new Set(writable.map(([, target]) => target));
    expect(dirs.output.split('\n').filter((dir) => dir !== '' && !mountPoints.has(dir))).toEqual([]);
  }, 180_000);

  attack('writing 1.2 GiB to /var/tmp, /var, /etc, /opt, $HOME, site-packages, / and more is refused or stops at a size', backend.name, async () => {
    await terminal.start();
    const script = [
      'for target in ' + FILL_TARGETS.join(' ') + '; do',
      '  [ -d "$target" ] || { mkdir -p "$target" 2>/dev/null || { echo "$target: cannot be made"; continue; }; }',
      '  out=$(dd if=/dev/zero of="$target/dg-fill" bs=1M count=1200 2>&1 | grep -o "No space left on device\\|Read-only file system\\|Permission denied\\|No such file or directory" | head -1)',
      '  echo "$target: ${out:-written} $(stat -c %s "$target/dg-fill" 2>/dev/null || echo 0)"',
      '  rm -f "$target/dg-fill"',
      'done',
    ].join('\n');
    const fill = await terminal.run(script, { timeoutMs: 300_000 });
    const lines = fill.output.trim().split('\n');
    // A pattern that matches several directories (python3.11, python3.12) gives a line each.
    expect(lines.length).toBeGreaterThanOrEqual(FILL_TARGETS.length);
    for (const line of lines) {
      const match = /^(.*): (No space left on device|Read-only file system|Permission denied|No such file or directory|cannot be made|written) ?(\d*)$/.exec(line);
      expect(match, line).not.toBeNull();
      expect(match?.[2], line).not.toBe('written');
      // Only a sized tmpfs takes anything: /var/tmp and /run/lock (Docker, 64 MiB and 16 MiB), $HOME under /tmp (512 MiB).
      expect(Number(match?.[3] || 0), line).toBeLessThanOrEqual(512 * MiB);
    }
    await nextStepWorks(terminal);
  }, 360_000);
});
