import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DebugGymError, SandboxUnavailableError, UnrecoverableTerminalError } from '@debug-gym/core';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { gc } from '../src/gc.js';
import { describeTerminalConformance } from './conformance.js';
import { processesLeft, processesMatching } from './processes.js';
import { requireOrSkip } from './sandbox-availability.js';

const status = await checkBubblewrap();
const here = dirname(fileURLToPath(import.meta.url));
const MiB = 1024 * 1024;

describe.runIf(requireOrSkip('bubblewrap', status.available, status.reason))('bubblewrap', () => {
  describeTerminalConformance('bubblewrap', () => new BubblewrapTerminal({ defaultTimeoutMs: 30_000 }), {
    hostProcesses: true,
    hostWorkdir: false,
  });

  describe('one jail per start()', () => {
    let scratch: string;

    beforeAll(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'bwrap-jail-test-'));
    });

    afterAll(async () => {
      await rm(scratch, { recursive: true, force: true });
    });

    it('keeps nothing on the host: starts and runs under a TMPDIR nested in private directories', async () => {
      const nested = join(scratch, 'a', 'b');
      await mkdir(nested, { recursive: true });
      await chmod(join(scratch, 'a'), 0o700); // as root, the jail's uid could not enter it
      const saved = process.env.TMPDIR;
      process.env.TMPDIR = nested;
      const term = new BubblewrapTerminal();
      try {
        await term.start();
        await term.writeFile('f.txt', 'data');
        expect(await term.run('cat f.txt; echo x > /tmp/t && echo tmp-ok')).toMatchObject({ exitCode: 0, output: 'datatmp-ok\n' });
        expect(await sandboxDirs(nested)).toEqual([]);
      } finally {
        await term.close();
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
    });

    it('copies a repository in as the sandbox user, writable even where it is read-only on disk', async () => {
      const repo = await mkdtemp(join(scratch, 'repo-'));
      await mkdir(join(repo, 'pkg'));
      await writeFile(join(repo, 'pkg', 'frozen.py'), 'x = 1\n', { mode: 0o444 });
      await chmod(join(repo, 'pkg'), 0o555);
      await chmod(repo, 0o755);
      const term = new BubblewrapTerminal();
      try {
        await term.start();
        await term.copyIn(repo);
        await term.writeFile('pkg/frozen.py', 'x = 2\n');
        await term.writeFile('pkg/new.py', 'y = 1\n');
        expect(await term.run('cat pkg/frozen.py pkg/new.py; stat -c %a pkg/frozen.py')).toMatchObject({ exitCode: 0, output: 'x = 2\ny = 1\n644\n' });
      } finally {
        await term.close();
        await chmod(join(repo, 'pkg'), 0o755);
      }
    });

    it('copies in a repository too large for one request (a 300 MiB sparse file) in pieces', async () => {
      const repo = await mkdtemp(join(scratch, 'huge-'));
      await writeFile(join(repo, 'sparse.bin'), '');
      await truncate(join(repo, 'sparse.bin'), 300 * MiB); // sparse: no disk used
      await writeFile(join(repo, 'tail.py'), 'x = 1\n');
      const term = new BubblewrapTerminal();
      try {
        await term.start();
        await term.copyIn(repo);
        expect((await term.run('stat -c %s sparse.bin; cat tail.py')).output).toBe(`${300 * MiB}\nx = 1\n`);
      } finally {
        await term.close();
        await rm(repo, { recursive: true, force: true });
      }
    }, 120_000);

    it('fails a streamed copy that overflows the working copy with a typed error, and stays usable', async () => {
      const repo = await mkdtemp(join(scratch, 'overflow-'));
      await writeFile(join(repo, 'noise.bin'), randomBytes(24 * MiB));
      const term = new BubblewrapTerminal({ workdirSizeBytes: 16 * MiB });
      try {
        await term.start();
        const error = await term.copyIn(repo).catch((caught: unknown) => caught);
        expect(DebugGymError.isInstance(error)).toBe(true);
        expect((error as DebugGymError).code).toBe('DG_WORKSPACE_IO');
        expect((error as Error).message).toMatch(/No space left on device.*workdirSizeBytes/);
        expect((await term.run('echo usable')).output).toBe('usable\n');
      } finally {
        await term.close();
        await rm(repo, { recursive: true, force: true });
      }
    });

    it('survives a command that exits without reading its input', async () => {
      const term = new BubblewrapTerminal();
      await term.start();
      try {
        for (let i = 0; i < 5; i++) {
          expect(await term.run('exit 3', { input: 'x'.repeat(4 * MiB) })).toMatchObject({ exitCode: 3 });
        }
        expect(await term.run('yes | head -c 3; echo')).toMatchObject({ exitCode: 0, output: 'y\ny\n' });
      } finally {
        await term.close();
      }
    });

    it('fails start() loudly when the sandbox cannot run its helper', async () => {
      const fake = join(scratch, 'bin', 'fake-python'); // its "prefix" (the parent of bin/) is shown in the jail
      await mkdir(dirname(fake));
      await writeFile(fake, '#!/bin/sh\necho "not a python" >&2\nexit 3\n', { mode: 0o755 });
      await chmod(scratch, 0o755);
      const term = new BubblewrapTerminal({ python: fake });
      const error = await term.start().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SandboxUnavailableError);
      expect((error as Error).message).toMatch(/exit code 3; stderr: not a python/);
      expect(term.started).toBe(false);
    });

    it('gives the working copy, /tmp and /dev/shm the configured sizes, and stops writes at them', async () => {
      const term = new BubblewrapTerminal({ workdirSizeBytes: 8 * MiB, tmpSizeBytes: 4 * MiB, shmSizeBytes: 2 * MiB });
      await term.start();
      try {
        const sizes = await term.run('df -k --output=size /workspace /tmp /dev/shm | tail -n 3 | tr -s " \\n" " "');
        expect(sizes.output.trim()).toBe('8192 4096 2048');
        for (const target of ['/workspace/fill', '/tmp/fill', '/dev/shm/fill']) {
          const fill = await term.run(`dd if=/dev/zero of=${target} bs=1M count=16 2>&1; rm -f ${target}`);
          expect(fill.output).toContain('No space left on device');
        }
        expect((await term.run('echo still fine')).output).toBe('still fine\n');
      } finally {
        await term.close();
      }
    });

    it('keeps the helper out of reach of the commands: no /proc access to its pipes, not matched by pkill -f python', async () => {
      const term = new BubblewrapTerminal();
      await term.start();
      try {
        const probe = await term.run(
          'pids=$(pgrep -f "^debug-gym-helper"); echo "helpers: $pids"; for pid in $pids; do ' +
            'echo \'{"id":1,"ok":true}\' > /proc/$pid/fd/1 && echo forged; ls /proc/$pid/fd >/dev/null && echo listed; done; true',
        );
        expect(probe.output).toMatch(/^helpers: \d+\n/);
        expect(probe.output).toContain('Permission denied');
        expect(probe.output).not.toMatch(/forged|listed/);
        await term.run('nohup python3 -c "import time; time.sleep(600)" >/dev/null 2>&1 &');
        await term.run('pkill -f python'); // kills the sleeper (and this command's own shell)
        expect(await term.run('pgrep -f "time[.]sleep" || echo gone; echo usable')).toMatchObject({ exitCode: 0, output: 'gone\nusable\n' });
      } finally {
        await term.close();
      }
    });

    it('ends the episode when a command kills the helper (kill -9 -1); start() brings a fresh jail', async () => {
      const term = new BubblewrapTerminal();
      await term.start();
      try {
        await term.writeFile('before.txt', 'x');
        await expect(term.run('kill -9 -1')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
        await expect(term.readFile('before.txt')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
        await expect(term.openSession('true', { prompt: '$ ' })).rejects.toBeInstanceOf(UnrecoverableTerminalError);
        await term.start();
        expect(await term.run('ls; echo fresh')).toMatchObject({ exitCode: 0, output: 'fresh\n' });
      } finally {
        await term.close();
      }
    });

    it('leaves no process and no file behind when its owner is SIGKILLed', async () => {
      const require = createRequire(import.meta.url);
      const viteNode = join(dirname(createRequire(require.resolve('vitest/package.json')).resolve('vite-node/package.json')), 'vite-node.mjs');
      const ownerTmp = await mkdtemp(join(scratch, 'owner-'));
      const leaseDir = join(ownerTmp, 'debug-gym-leases-test');
      const seconds = `7${randomInt(100_000, 999_999)}`;
      const child = spawn(
        process.execPath,
        [viteNode, '--config', join(here, '..', 'vitest.config.ts'), join(here, 'fixtures', 'bubblewrap-owner.ts'), seconds],
        { env: { ...process.env, TMPDIR: ownerTmp, DEBUG_GYM_LEASE_DIR: leaseDir }, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        await new Promise<void>((resolve, reject) => {
          let out = '';
          child.stdout!.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            if (out.includes('READY')) resolve();
          });
          child.once('exit', (code) => reject(new Error(`owner exited early (${String(code)}): ${out}`)));
        });
        // "started" is printed just before the shell execs sleep: on a busy machine the exec may still be pending.
        await expect.poll(() => processesMatching(`sleep ${seconds}`), { timeout: 20_000 }).toHaveLength(1);
        child.kill('SIGKILL');
        await exited;
        expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
        expect(await sandboxDirs(ownerTmp)).toEqual([]); // the dead owner's lease stays for gc
      } finally {
        child.kill('SIGKILL'); // also when an assertion failed before the kill under test
        await exited;
        await gc({ leaseDir, containers: false }); // its cgroup, which only gc removes
      }
    }, 60_000);
  });
});

/** What a sandbox left in `dir`, leases (kept for gc) aside. */
async function sandboxDirs(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => !name.startsWith('debug-gym-leases'));
}
