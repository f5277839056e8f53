/**
 * One behaviour contract for every terminal backend (real processes, no mocks). A backend's test
 * file calls `describeTerminalConformance('local', () => new LocalTerminal(), {...})`.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Terminal, TerminalSession } from '@debug-gym/core';
import {
  FileTooLargeError,
  NotADirectoryError,
  NotAFileError,
  PathNotFoundError,
  SessionClosedError,
  TerminalNotStartedError,
} from '@debug-gym/core';
import { processesLeft } from './processes.js';

export interface ConformanceCapabilities {
  /** The sandbox's processes show up in this host's /proc, so leaks can be checked there. */
  hostProcesses: boolean;
  /** `workdir` is a host directory (under the OS temp dir), which close() must remove. */
  hostWorkdir: boolean;
  /** start/close cycles of the leak test (default 12: a leak of one thing per cycle shows as 12; test/e2e/soak.test.ts runs 50). */
  cycles?: number;
  /** Backends whose sandboxes live outside this process (containers): the id of a started one... */
  sandboxId?: (terminal: Terminal) => string | undefined;
  /** ...and which of those ids still exist. */
  sandboxesLeft?: (ids: string[]) => Promise<string[]>;
  /**
   * `python`, `python3`, `pip` and `pip3` are the configured interpreter, from a directory the
   * sandbox's commands cannot write (default true; `false` with the reason where the backend has none).
   */
  pythonCommands?: true | { missing: string };
}

/** A command line that is unique to this test run, to find its processes on the host. */
function marker(): { seconds: string } {
  return { seconds: `7${randomInt(100_000, 999_999)}` };
}

const PDB_PROMPT = '(Pdb) ';

export function describeTerminalConformance(
  name: string,
  factory: () => Promise<Terminal> | Terminal,
  capabilities: ConformanceCapabilities,
): void {
  describe(`${name} terminal conformance`, () => {
    let term: Terminal;

    beforeAll(async () => {
      term = await factory();
      await term.start();
    });

    afterAll(async () => {
      await term?.close();
    });

    describe('run', () => {
      it('reports its kind, python and an absolute workdir', () => {
        expect(term.started).toBe(true);
        expect(term.kind).toBeTruthy();
        expect(term.python).toBeTruthy();
        expect(term.workdir.startsWith('/')).toBe(true);
      });

      it('returns exit codes and starts in the empty workdir', async () => {
        expect((await term.run('true')).exitCode).toBe(0);
        const failed = await term.run('exit 3');
        expect(failed).toMatchObject({ exitCode: 3, timedOut: false, droppedBytes: 0 });
        expect(failed.durationMs).toBeGreaterThanOrEqual(0);
        const pwd = await term.run('pwd');
        expect(pwd.output.trim()).toBe(term.workdir);
      });

      it('merges stdout and stderr in order', async () => {
        const result = await term.run('echo one; echo two >&2; echo three; echo four >&2');
        expect(result.output).toBe('one\ntwo\nthree\nfour\n');
      });

      it('decodes UTF-8, replaces invalid bytes, strips ANSI escapes and carriage returns', async () => {
        const result = await term.run(
          "printf 'h\\xc3\\xa9llo \\xe2\\x9c\\x93 \\xe6\\x97\\xa5\\n'; printf 'bad \\xff\\xfe end\\n'; " +
            "printf '\\033[31mred\\033[0m\\n'; printf 'a\\r\\nb\\rc\\n'",
        );
        expect(result.output).toBe('héllo ✓ 日\nbad \uFFFD\uFFFD end\nred\na\nb\nc\n');
      });

      it('feeds `input` to stdin', async () => {
        const result = await term.run('cat; echo', { input: 'from stdin' });
        expect(result.output).toBe('from stdin\n');
      });

      it('runs the configured python', async () => {
        const result = await term.run(`${term.python} -c "import sys; print(sys.version_info[0])"`);
        expect(result).toMatchObject({ exitCode: 0, output: '3\n' });
      });
    });

    describe('timeouts', () => {
      it('kills the command and its background children, and stays usable', async () => {
        const { seconds } = marker();
        const result = await term.run(`sleep ${seconds} & sleep ${seconds}1`, { timeoutMs: 500 });
        expect(result.timedOut).toBe(true);
        expect(result.exitCode).toBeNull();
        if (capabilities.hostProcesses) expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
        const after = await term.run('echo still alive');
        expect(after).toMatchObject({ exitCode: 0, output: 'still alive\n', timedOut: false });
      });

      it('returns when the command exits, even if a background child holds the output open', async () => {
        const result = await term.run('sleep 30 & echo started', { timeoutMs: 10_000 });
        expect(result).toMatchObject({ exitCode: 0, timedOut: false, output: 'started\n' });
      });

      it('keeps the output printed before the timeout', async () => {
        const result = await term.run('echo before; sleep 30', { timeoutMs: 500 });
        expect(result.timedOut).toBe(true);
        expect(result.output).toContain('before');
      });
    });

    describe('environment', () => {
      it('does not leak the host environment', async () => {
        const saved = process.env.OPENAI_API_KEY;
        process.env.OPENAI_API_KEY = 'sk-test';
        try {
          const result = await term.run('echo "key=${OPENAI_API_KEY:-unset}"; env');
          expect(result.output).toContain('key=unset');
          expect(result.output).not.toContain('sk-test');
        } finally {
          if (saved === undefined) delete process.env.OPENAI_API_KEY;
          else process.env.OPENAI_API_KEY = saved;
        }
      });

      it('sets a predictable environment for Python', async () => {
        const result = await term.run('echo "$PYTHONUNBUFFERED $PYTHONDONTWRITEBYTECODE $TERM"');
        expect(result.output).toBe('1 1 dumb\n');
      });

      it('has python, python3 and pip that are the configured interpreter, in a directory commands cannot change (or says why not)', async () => {
        const print = "-c 'import sys; print(sys.executable)'";
        const configured = (await term.run(`${term.python} ${print}`)).output;
        if (capabilities.pythonCommands !== undefined && capabilities.pythonCommands !== true) {
          // No such directory: PATH is the image's, and the configured interpreter still runs.
          expect(configured).toMatch(/^\/\S+\n$/);
          expect((await term.run('echo "$PATH"')).output).not.toContain('/run/debug-gym/bin');
          return;
        }
        expect(configured).toMatch(/^\/\S+\n$/);
        if (term.python.startsWith('/')) expect(configured).toBe(`${term.python}\n`);
        const result = await term.run(`python ${print}; python3 ${print}; printf 'import sys\\nprint("script", sys.argv[1:])\\n' > /tmp/dg-script.py && python /tmp/dg-script.py a b`);
        expect(result.output).toBe(`${configured}${configured}script ['a', 'b']\n`);
        // pip is the configured interpreter's (its pip module, or the interpreter saying it has none).
        const pip = await term.run('pip --version');
        expect(pip.output).toMatch(/^(pip \S+ from \S+ \(python \d\.\d+\)|\S*python\S*: No module named pip)\n$/);
        const where = (await term.run('dirname "$(command -v python)"')).output.trim();
        expect((await term.run('for c in python3 pip pip3; do command -v $c; done')).output).toBe(`${where}/python3\n${where}/pip\n${where}/pip3\n`);
        expect(where.startsWith(term.workdir)).toBe(false);
        if (name !== 'local') {
          const tamper = await term.run(`echo 'echo forged' > ${where}/python3 || echo refused; touch ${where}/pytest 2>/dev/null || echo refused; python3 -c 'print(1)'`);
          expect(tamper.output).toMatch(/refused\n[\s\S]*refused\n1\n$/);
        }
      });

      it('applies per-call env and cwd', async () => {
        await term.writeFile('sub/dir/file.txt', 'x');
        const result = await term.run('echo "$GREETING"; pwd', { env: { GREETING: 'hello there' }, cwd: 'sub/dir' });
        expect(result.output).toBe(`hello there\n${term.workdir}/sub/dir\n`);
        const absolute = await term.run('pwd', { cwd: `${term.workdir}/sub` });
        expect(absolute.output).toBe(`${term.workdir}/sub\n`);
        const unset = await term.run('echo "${GREETING:-unset}"');
        expect(unset.output).toBe('unset\n');
      });

      it('rejects a missing or non-directory cwd with a typed error', async () => {
        await expect(term.run('pwd', { cwd: 'no/such/dir' })).rejects.toBeInstanceOf(PathNotFoundError);
        await expect(term.run('pwd', { cwd: 'sub/dir/file.txt' })).rejects.toBeInstanceOf(NotADirectoryError);
      });
    });

    describe('output cap', () => {
      it('keeps about maxOutputBytes of a 20 MB print and counts the rest', async () => {
        const rssBefore = process.memoryUsage().rss;
        const result = await term.run("head -c 20000000 /dev/zero | tr '\\0' a");
        expect(result.exitCode).toBe(0);
        expect(result.droppedBytes).toBeGreaterThan(0);
        expect(result.output.length).toBeLessThan(2_100_000);
        const kept = result.output.indexOf('\n[... output truncated');
        expect(kept).toBeGreaterThan(0);
        expect(kept + result.droppedBytes).toBe(20_000_000);
        expect(result.output).toContain(`${result.droppedBytes} more bytes were dropped`);
        expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
      });
    });

    describe('sessions (pdb)', () => {
      let session: TerminalSession;

      beforeAll(async () => {
        await term.writeFile('loop.py', 'import time\ncounter = 0\nwhile True:\n    counter += 1\n');
      });

      afterAll(async () => {
        await session?.close();
      });

      it('starts pdb and reads up to the prompt', async () => {
        session = await term.openSession(`${term.python} -m pdb loop.py`, { prompt: PDB_PROMPT, timeoutMs: 20_000 });
        const first = await session.read();
        expect(first).toMatchObject({ promptSeen: true, timedOut: false, exited: false, exitCode: null });
        expect(first.output).toContain('loop.py(1)<module>()');
        expect(first.output).not.toContain(PDB_PROMPT);
        expect(first.rawOutput).toContain('\r\n');
        expect(session.closed).toBe(false);
      });

      it('evaluates expressions without echoing the input', async () => {
        const result = await session.send('p 1+1');
        expect(result).toMatchObject({ output: '2\n', promptSeen: true, timedOut: false });
        const text = await session.send('p "unicode ✓"');
        expect(text.output).toBe("'unicode ✓'\n");
      });

      it('times out on a running program, and interrupt() brings the prompt back', async () => {
        const running = await session.send('c', { timeoutMs: 500 });
        expect(running).toMatchObject({ promptSeen: false, timedOut: true, exited: false });
        const stopped = await session.interrupt({ timeoutMs: 10_000 });
        expect(stopped.promptSeen).toBe(true);
        expect(stopped.output).toContain('loop.py');
        const value = await session.send('p counter > 0');
        expect(value.output).toBe('True\n');
      });

      it('interrupts a hanging statement', async () => {
        const hanging = await session.send('!import time; time.sleep(100)', { timeoutMs: 500 });
        expect(hanging.timedOut).toBe(true);
        const back = await session.interrupt({ timeoutMs: 10_000 });
        expect(back.promptSeen).toBe(true);
        expect(back.output).toContain('KeyboardInterrupt');
        expect((await session.send('p 3*3')).output).toBe('9\n');
      });

      it('detects the program exiting, then refuses to send', async () => {
        const quit = await session.send('q');
        expect(quit).toMatchObject({ exited: true, promptSeen: false });
        expect(session.closed).toBe(true);
        await expect(session.send('p 1')).rejects.toBeInstanceOf(SessionClosedError);
        await expect(session.interrupt()).rejects.toBeInstanceOf(SessionClosedError);
        await session.close();
        await session.close();
      });

      it('close() kills the program and is idempotent; reads after it fail', async () => {
        const script = `hang_${randomBytes(4).toString('hex')}.py`;
        await term.writeFile(script, 'import time\ntime.sleep(1000)\n');
        const hang = await term.openSession(`${term.python} ${script}`, { prompt: PDB_PROMPT });
        const read = await hang.read({ timeoutMs: 300 });
        expect(read.timedOut).toBe(true);
        await hang.close();
        await hang.close();
        expect(hang.closed).toBe(true);
        await expect(hang.send('x')).rejects.toBeInstanceOf(SessionClosedError);
        await expect(hang.read()).rejects.toBeInstanceOf(SessionClosedError);
        if (capabilities.hostProcesses) expect(await processesLeft(script)).toEqual([]);
      });

      it('reports the exit code of a program that ends on its own', async () => {
        const done = await term.openSession('echo bye; exit 7', { prompt: PDB_PROMPT });
        const result = await done.read({ timeoutMs: 10_000 });
        expect(result).toMatchObject({ output: 'bye\n', exited: true, exitCode: 7, promptSeen: false });
        await done.close();
      });

      it('runs sessions with per-call env and cwd, without the host environment', async () => {
        process.env.OPENAI_API_KEY = 'sk-test';
        try {
          const env = await term.openSession('pwd; echo "$GREETING ${OPENAI_API_KEY:-unset} $TERM"', {
            prompt: PDB_PROMPT,
            cwd: 'sub',
            env: { GREETING: 'hi' },
          });
          const result = await env.read({ timeoutMs: 10_000 });
          expect(result.output).toBe(`${term.workdir}/sub\nhi unset xterm\n`);
          await env.close();
        } finally {
          delete process.env.OPENAI_API_KEY;
        }
      });
    });

    describe('files', () => {
      const samples: Array<[string, Uint8Array]> = [
        ['trailing.txt', Buffer.from('line 1\nline 2\n\n\n')],
        ['no-newline.txt', Buffer.from('no newline at end')],
        ['empty.txt', Buffer.alloc(0)],
        ['big.bin', randomBytes(2 * 1024 * 1024)],
        ['latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0x00, 0x80])],
        ['crlf.txt', Buffer.from('a\r\nb\r\n')],
      ];

      it.each(samples)('round-trips %s byte for byte', async (path, data) => {
        await term.writeFile(`roundtrip/${path}`, data);
        expect(Buffer.from(await term.readFile(`roundtrip/${path}`)).equals(Buffer.from(data))).toBe(true);
        const size = await term.run(`wc -c < roundtrip/${path}`);
        expect(size.output.trim()).toBe(String(data.length));
      });

      it('writes strings as UTF-8 and overwrites', async () => {
        await term.writeFile('text.txt', 'first version that is long');
        await term.writeFile('text.txt', 'zweite ✓');
        expect(Buffer.from(await term.readFile('text.txt')).toString('utf8')).toBe('zweite ✓');
      });

      it('creates parent directories the sandbox can write into', async () => {
        await term.writeFile('deep/er/still/file.py', 'x = 1\n');
        expect((await term.stat('deep/er'))?.type).toBe('directory');
        const result = await term.run('echo y > deep/er/still/new.txt && echo "# edit" >> deep/er/still/file.py && cat deep/er/still/file.py');
        expect(result).toMatchObject({ exitCode: 0, output: 'x = 1\n# edit\n' });
      });

      it('sees what commands wrote, byte for byte', async () => {
        await term.run("mkdir -p made && printf 'from \\xff command' > made/out.bin");
        expect(Buffer.from(await term.readFile('made/out.bin'))).toEqual(Buffer.from([...Buffer.from('from '), 0xff, ...Buffer.from(' command')]));
      });

      it('lists directories with types and the executable bit', async () => {
        await term.writeFile('listing/script.sh', '#!/bin/sh\necho hi\n');
        await term.writeFile('listing/plain.txt', 'plain');
        await term.writeFile('listing/nested/inner.txt', 'inner');
        await term.run('chmod +x listing/script.sh && ln -s plain.txt listing/link && mkfifo listing/fifo');
        const entries = await term.readDir('listing');
        const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
        expect(Object.keys(byName).sort()).toEqual(['fifo', 'link', 'nested', 'plain.txt', 'script.sh']);
        expect(byName['script.sh']).toEqual({ name: 'script.sh', type: 'file', executable: true });
        expect(byName['plain.txt']).toEqual({ name: 'plain.txt', type: 'file', executable: false });
        expect(byName.nested).toMatchObject({ type: 'directory' });
        expect(byName.link).toMatchObject({ type: 'symlink' });
        expect(byName.fifo).toMatchObject({ type: 'other' });
        expect((await term.readDir('.')).some((e) => e.name === 'listing')).toBe(true);
        expect((await term.readDir(term.workdir)).some((e) => e.name === 'listing')).toBe(true);
      });

      it('stats without following a final symlink', async () => {
        expect(await term.stat('listing/plain.txt')).toEqual({ type: 'file', size: 5, executable: false });
        expect(await term.stat('listing/script.sh')).toMatchObject({ type: 'file', executable: true });
        expect(await term.stat('listing/link')).toMatchObject({ type: 'symlink' });
        expect(await term.stat('listing/nested')).toMatchObject({ type: 'directory', executable: false });
        expect(await term.stat('listing/missing')).toBeNull();
        expect(await term.stat('listing/plain.txt/below')).toBeNull();
      });

      it('resolves real paths', async () => {
        expect(await term.realPath('listing/link')).toBe(`${term.workdir}/listing/plain.txt`);
        expect(await term.realPath('listing/nested/../plain.txt')).toBe(`${term.workdir}/listing/plain.txt`);
        expect(await term.realPath('.')).toBe(term.workdir);
        await expect(term.realPath('listing/missing')).rejects.toBeInstanceOf(PathNotFoundError);
        expect(Buffer.from(await term.readFile('listing/link')).toString()).toBe('plain');
      });

      it('reads a file up to maxBytes and refuses one a byte larger', async () => {
        // Larger than the first read buffer of the host backends, which grows with the file.
        const data = randomBytes(50_000);
        await term.writeFile('capped.bin', data);
        expect(Buffer.from(await term.readFile('capped.bin', { maxBytes: 50_000 })).equals(data)).toBe(true);
        expect(Buffer.from(await term.readFile('capped.bin', { maxBytes: 64 * 1024 * 1024 })).equals(data)).toBe(true);
        await expect(term.readFile('capped.bin', { maxBytes: 49_999 })).rejects.toBeInstanceOf(FileTooLargeError);
      });

      it('reads a file over 2 MiB whole (helper backends bring it in 2 MiB pieces), and one of exactly a piece', async () => {
        const data = randomBytes(2 * 1024 * 1024 + 3);
        await term.writeFile('big.bin', data);
        expect(Buffer.from(await term.readFile('big.bin')).equals(data)).toBe(true);
        expect(Buffer.from(await term.readFile('big.bin', { maxBytes: data.length })).equals(data)).toBe(true);
        await expect(term.readFile('big.bin', { maxBytes: data.length - 1 })).rejects.toBeInstanceOf(FileTooLargeError);
        const boundary = data.subarray(0, 2 * 1024 * 1024);
        await term.writeFile('boundary.bin', boundary);
        expect(Buffer.from(await term.readFile('boundary.bin')).equals(boundary)).toBe(true);
        await term.writeFile('empty.bin', '');
        expect((await term.readFile('empty.bin')).length).toBe(0);
      });

      it('throws typed errors', async () => {
        await expect(term.readFile('nope.txt')).rejects.toBeInstanceOf(PathNotFoundError);
        await expect(term.readFile('listing')).rejects.toBeInstanceOf(NotAFileError);
        await expect(term.readDir('nope')).rejects.toBeInstanceOf(PathNotFoundError);
        await expect(term.readDir('listing/plain.txt')).rejects.toBeInstanceOf(NotADirectoryError);
        await expect(term.writeFile('listing/plain.txt/below.txt', 'x')).rejects.toBeInstanceOf(NotADirectoryError);
      });

      it('copies a host directory in: hidden files, nesting, symlinks kept as symlinks', async () => {
        const host = await mkdtemp(join(tmpdir(), 'conformance-src-'));
        try {
          await mkdir(join(host, 'pkg', 'sub'), { recursive: true });
          await writeFile(join(host, '.hidden'), 'secret-ish');
          await writeFile(join(host, 'pkg', 'mod.py'), 'def f():\n    return 1\n');
          await writeFile(join(host, 'pkg', 'sub', 'data.bin'), Buffer.from([0, 1, 2, 255]));
          await symlink('pkg/mod.py', join(host, 'link.py'));
          await term.copyIn(host);
          await term.copyIn(host, 'copy/target');
          for (const base of ['.', 'copy/target']) {
            expect(Buffer.from(await term.readFile(`${base}/.hidden`)).toString()).toBe('secret-ish');
            expect(Buffer.from(await term.readFile(`${base}/pkg/sub/data.bin`))).toEqual(Buffer.from([0, 1, 2, 255]));
            expect(await term.stat(`${base}/link.py`)).toMatchObject({ type: 'symlink' });
            expect(Buffer.from(await term.readFile(`${base}/link.py`)).toString()).toContain('def f()');
          }
          const edit = await term.run('echo "# more" >> pkg/mod.py && ls -A copy/target && readlink link.py');
          expect(edit.exitCode).toBe(0);
          expect(edit.output).toBe('.hidden\nlink.py\npkg\npkg/mod.py\n');
        } finally {
          await rm(host, { recursive: true, force: true });
        }
      });

      it('removes files and trees, and ignores missing paths', async () => {
        await term.writeFile('gone/a/b.txt', 'b');
        await term.writeFile('gone/c.txt', 'c');
        await term.remove('gone/c.txt');
        expect(await term.stat('gone/c.txt')).toBeNull();
        await term.remove('gone');
        expect(await term.stat('gone')).toBeNull();
        await term.remove('gone');
        await term.run('ln -s listing dirlink');
        await term.remove('dirlink');
        expect(await term.stat('dirlink')).toBeNull();
        expect(await term.stat('listing/plain.txt')).not.toBeNull();
      });
    });

    describe('lifecycle and cleanup', () => {
      it('close() removes the workdir and every process, and is idempotent', async () => {
        const own = await factory();
        await own.start();
        const workdir = own.workdir;
        const { seconds } = marker();
        let session: TerminalSession | undefined;
        try {
          const started = await own.run(`nohup sleep ${seconds} >/dev/null 2>&1 & (sleep ${seconds}1 &) ; echo started`);
          expect(started.output).toContain('started');
          session = await own.openSession(`sleep ${seconds}2`, { prompt: PDB_PROMPT });
          expect(session.closed).toBe(false);
        } finally {
          await own.close();
        }
        await own.close();
        expect(own.started).toBe(false);
        expect(session?.closed).toBe(true);
        expect(() => own.workdir).toThrow(TerminalNotStartedError);
        await expect(own.run('true')).rejects.toBeInstanceOf(TerminalNotStartedError);
        await expect(own.readFile('x')).rejects.toBeInstanceOf(TerminalNotStartedError);
        if (capabilities.hostWorkdir) expect(existsSync(workdir)).toBe(false);
        if (capabilities.hostProcesses) expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
      });

      it('start() again gives a fresh, empty workdir', async () => {
        const own = await factory();
        try {
          await own.start();
          await own.writeFile('leftover.txt', 'x');
          const first = own.workdir;
          await own.start();
          expect(await own.readDir('.')).toEqual([]);
          if (capabilities.hostWorkdir) {
            expect(own.workdir).not.toBe(first);
            expect(existsSync(first)).toBe(false);
          }
        } finally {
          await own[Symbol.asyncDispose]();
        }
        expect(own.started).toBe(false);
      });

      it('leaves no temp dirs, processes or containers after repeated start/close cycles', async () => {
        await expectNoLeaksAfterCycles(factory, capabilities, capabilities.cycles ?? 12);
      }, 180_000);
    });
  });
}

/**
 * `cycles` start/close cycles, each leaving a background `sleep` behind: no temp dir, process or sandbox
 * may be left (the conformance suite runs a few; test/e2e/soak.test.ts runs 50 on every backend).
 */
export async function expectNoLeaksAfterCycles(factory: () => Promise<Terminal> | Terminal, capabilities: ConformanceCapabilities, cycles: number): Promise<void> {
  // A private TMPDIR, so other test runs creating temp dirs meanwhile do not count.
  const savedTmp = process.env.TMPDIR;
  const privateTmp = await mkdtemp(join(tmpdir(), 'conformance-cycles-'));
  process.env.TMPDIR = privateTmp;
  const { seconds } = marker();
  try {
    const ids: string[] = [];
    for (let i = 0; i < cycles; i++) {
      const own = await factory();
      await own.start();
      const id = capabilities.sandboxId?.(own);
      if (id) ids.push(id);
      await own.run(`sleep ${seconds} >/dev/null 2>&1 &`);
      await own.close();
    }
    if (capabilities.hostWorkdir) expect(readdirSync(privateTmp)).toEqual([]);
    if (capabilities.sandboxesLeft) {
      expect(ids).toHaveLength(cycles);
      expect(await capabilities.sandboxesLeft(ids)).toEqual([]);
    }
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    await rm(privateTmp, { recursive: true, force: true });
  }
  if (capabilities.hostProcesses) expect(await processesLeft(`sleep ${seconds}`)).toEqual([]);
}
