/**
 * `Terminal.pauseProcesses()`: one contract for every backend that offers it (the helper-served
 * sandboxes: bubblewrap, Docker, Kubernetes). The env pauses around every scoring run, so nothing the
 * agent left running (a thread of its pdb session, a process it detached, a fork loop) may run
 * between pause and resume, while debug-gym's own commands (the scoring run, file operations, the
 * fork server) keep working.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Terminal, TerminalSession } from '@debug-gym/core';

/** Appends a byte to `file` every 2 ms while it runs. */
const TICKER = (file: string): string => `import time\nwhile True:\n    open(${JSON.stringify(file)}, 'a').write('x'); time.sleep(0.002)\n`;

export function describePauseContract(name: string, create: () => Terminal): void {
  describe(`${name}: pauseProcesses`, () => {
    const open: Array<{ terminal: Terminal; sessions: TerminalSession[] }> = [];
    afterEach(async () => {
      for (const { terminal, sessions } of open.splice(0)) {
        await Promise.all(sessions.map((session) => session.close().catch(() => undefined)));
        await terminal.close();
      }
    });

    async function started(): Promise<{ terminal: Terminal; sessions: TerminalSession[] }> {
      const terminal = create();
      const entry = { terminal, sessions: [] as TerminalSession[] };
      open.push(entry);
      await terminal.start();
      return entry;
    }

    async function size(terminal: Terminal, path: string): Promise<number> {
      return (await terminal.stat(path))?.size ?? 0;
    }

    /** The file stops growing: sampled twice, 300 ms apart, after the pause returned. */
    async function frozen(terminal: Terminal, path: string): Promise<boolean> {
      const first = await size(terminal, path);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return (await size(terminal, path)) === first;
    }

    it('stops a thread of a PTY session and a process it detached, resumes both, and keeps debug-gym working meanwhile', async () => {
      const { terminal, sessions } = await started();
      await terminal.writeFile('ticker.py', TICKER('detached.txt'));
      const session = await terminal.openSession(`${terminal.python} -q -i`, { prompt: '>>> ', timeoutMs: 30_000 });
      sessions.push(session);
      await session.read();
      const lines = [
        'import threading, time, subprocess, sys',
        "t = threading.Thread(target=lambda: [(open('thread.txt', 'a').write('x'), time.sleep(0.002)) for _ in iter(int, 1)], daemon=True); t.start()",
        "p = subprocess.Popen([sys.executable, 'ticker.py'], start_new_session=True)",
      ];
      for (const line of lines) expect((await session.send(line)).promptSeen).toBe(true);
      await expect.poll(() => size(terminal, 'thread.txt'), { timeout: 15_000 }).toBeGreaterThan(0);
      await expect.poll(() => size(terminal, 'detached.txt'), { timeout: 15_000 }).toBeGreaterThan(0);

      const paused = await terminal.pauseProcesses!();
      try {
        // The session's interpreter and the detached ticker at least (the shell that started them too).
        expect(paused.paused).toBeGreaterThanOrEqual(2);
        expect(paused.killed).toBe(0);
        expect(await frozen(terminal, 'thread.txt')).toBe(true);
        expect(await frozen(terminal, 'detached.txt')).toBe(true);
        // What debug-gym starts while paused runs: a command, and a Python run.
        const run = await terminal.run(`${terminal.python} -c 'print(6 * 7)'`, { timeoutMs: 60_000 });
        expect(run.output.trim()).toBe('42');
        await terminal.writeFile('written.txt', 'ok');
        expect(Buffer.from(await terminal.readFile('written.txt')).toString()).toBe('ok');
      } finally {
        await paused.resume();
      }
      const before = await size(terminal, 'thread.txt');
      await expect.poll(() => size(terminal, 'thread.txt'), { timeout: 15_000 }).toBeGreaterThan(before);
      const detached = await size(terminal, 'detached.txt');
      await expect.poll(() => size(terminal, 'detached.txt'), { timeout: 15_000 }).toBeGreaterThan(detached);
      // The session answers as before.
      expect((await session.send('print(t.is_alive(), p.poll())')).output).toContain('True None');
    });

    it('leaves stopped what the agent had stopped itself, and resume() twice is harmless', async () => {
      const { terminal, sessions } = await started();
      await terminal.writeFile('ticker.py', TICKER('mine.txt'));
      const session = await terminal.openSession(`${terminal.python} -q -i`, { prompt: '>>> ', timeoutMs: 30_000 });
      sessions.push(session);
      await session.read();
      const lines = ['import subprocess, sys, os, signal', "p = subprocess.Popen([sys.executable, 'ticker.py'], start_new_session=True)"];
      for (const line of lines) expect((await session.send(line)).promptSeen).toBe(true);
      await expect.poll(() => size(terminal, 'mine.txt'), { timeout: 15_000 }).toBeGreaterThan(0);
      expect((await session.send('os.kill(p.pid, signal.SIGSTOP)')).promptSeen).toBe(true);
      await expect.poll(() => frozen(terminal, 'mine.txt'), { timeout: 15_000 }).toBe(true);

      const paused = await terminal.pauseProcesses!();
      await paused.resume();
      await paused.resume();
      expect(await frozen(terminal, 'mine.txt')).toBe(true);
      expect((await session.send('os.kill(p.pid, signal.SIGCONT)')).promptSeen).toBe(true);
      const now = await size(terminal, 'mine.txt');
      await expect.poll(() => size(terminal, 'mine.txt'), { timeout: 15_000 }).toBeGreaterThan(now);
    });

    it('catches a fork loop: every process it made is stopped, none is running when pause returns', async () => {
      const { terminal, sessions } = await started();
      await terminal.writeFile(
        'forker.py',
        "import os, time\nwhile True:\n    if os.fork() == 0:\n        open('forks.txt', 'a').write('x')\n        time.sleep(0.05)\n        os._exit(0)\n    try:\n        os.waitpid(-1, os.WNOHANG)\n    except ChildProcessError:\n        pass\n    time.sleep(0.01)\n",
      );
      const session = await terminal.openSession(`${terminal.python} -q -i`, { prompt: '>>> ', timeoutMs: 30_000 });
      sessions.push(session);
      await session.read();
      expect((await session.send("import subprocess, sys; p = subprocess.Popen([sys.executable, 'forker.py'], start_new_session=True)")).promptSeen).toBe(true);
      await expect.poll(() => size(terminal, 'forks.txt'), { timeout: 15_000 }).toBeGreaterThan(3);
      const paused = await terminal.pauseProcesses!();
      try {
        expect(await frozen(terminal, 'forks.txt')).toBe(true);
      } finally {
        await paused.resume();
      }
      const now = await size(terminal, 'forks.txt');
      await expect.poll(() => size(terminal, 'forks.txt'), { timeout: 15_000 }).toBeGreaterThan(now);
    });
  });
}

