/**
 * The terminal's own primitives, below the env: sandbox start/close, a shell command, file calls,
 * Python's start-up, the raw test run, and a raw pdb session (one round trip vs the original's four
 * per agent command). They explain the step rows: a step costs its primitives plus framework.
 */
import { splitShellWords } from '@debug-gym/core';
import { type BackendName, type BackendSettings, makeTerminal } from './backends.js';
import { InstrumentedTerminal } from './instrumented-terminal.js';
import { Meter, type Sample } from './meter.js';
import type { Progress } from './progress.js';
import { RowCollector } from './rows.js';
import { cpuProbe } from './sandbox-probe.js';
import type { PerfTask } from './task.js';

export interface TerminalSuiteOptions {
  repeat: number;
  warmup: number;
  /** Samples of the cheap primitives (run, files, pdb round trips). */
  primitiveRepeat: number;
}

export function terminalSuiteUnits(options: TerminalSuiteOptions): number {
  return (options.warmup + options.repeat) * 5 + (options.warmup + options.primitiveRepeat) * 6;
}

const PDB_PROMPT = '(Pdb) ';

export async function runTerminalSuite(
  backend: BackendName,
  settings: BackendSettings,
  task: PerfTask,
  options: TerminalSuiteOptions,
  progress: Progress,
): Promise<RowCollector> {
  const rows = new RowCollector();
  const total = (count: number): number => options.warmup + count;
  const keep = (index: number): boolean => index >= options.warmup;

  progress.phase(`${backend}: sandbox start / close`);
  for (let index = 0; index < total(options.repeat); index++) {
    const terminal = await makeTerminal(backend, settings);
    const meter = new Meter(() => null);
    const started = await meter.measure(() => terminal.start());
    const copied = await meter.measure(() => terminal.copyIn(task.path, terminal.workdir));
    const closed = await meter.measure(() => terminal.close());
    if (keep(index)) {
      rows.add('terminal.start', 'terminal', 'sandbox start (empty)', started.sample);
      rows.add('terminal.copy-in', 'terminal', 'copy the task in', copied.sample);
      rows.add('terminal.close', 'terminal', 'sandbox close', closed.sample);
    }
    progress.tick(2);
  }

  const terminal = new InstrumentedTerminal(await makeTerminal(backend, settings));
  try {
    await terminal.start();
    await terminal.copyIn(task.path, terminal.workdir);
    const meter = new Meter(cpuProbe(terminal), terminal);
    const sample = async (id: string, label: string, count: number, operation: () => Promise<unknown>, check?: (value: unknown) => boolean): Promise<void> => {
      // Quiet sandbox at the start of the block; the samples then follow each other back to back.
      await meter.settle();
      for (let index = 0; index < total(count); index++) {
        const { sample: taken } = await meter.measure(operation, check);
        if (keep(index)) rows.add(id, id.startsWith('pdb') ? 'pdb-protocol' : 'terminal', label, taken);
        progress.tick();
      }
    };
    progress.phase(`${backend}: terminal primitives`);
    const exitedZero = (value: unknown): boolean => (value as { exitCode: number | null }).exitCode === 0;
    await sample('terminal.run-true', "run('true')", options.primitiveRepeat, () => terminal.run('true'), exitedZero);
    await sample('terminal.read-file', `readFile ${task.codeFile}`, options.primitiveRepeat, () => terminal.readFile(task.codeFile));
    await sample('terminal.read-dir', 'readDir .', options.primitiveRepeat, () => terminal.readDir('.'));
    let counter = 0;
    await sample('terminal.write-file', 'writeFile (small)', options.primitiveRepeat, () => terminal.writeFile('perf-scratch.txt', `value ${counter++}\n`));
    await terminal.remove('perf-scratch.txt');
    await sample('terminal.python', 'python -c pass', options.repeat, () => terminal.run(`${terminal.python} -c pass`), exitedZero);
    const testCommand = task.entrypoint.replace(/^python\b/, terminal.python);
    const ranTests = (value: unknown): boolean => /\b\d+ (passed|failed)/.test((value as { output: string }).output);
    await sample('terminal.pytest', 'test command alone (raw run)', options.repeat, () => terminal.run(testCommand), ranTests);
    const words = splitShellWords(task.entrypoint.replace(/^python\s+/, ''));
    if (terminal.startForkServer && words) {
      const status = await terminal.startForkServer({ preload: ['pytest'] });
      if (status.ready) {
        const python = { args: words, uses: ['pytest'] as const };
        const forked = (value: unknown): boolean => ranTests(value) && (value as { launch?: { via: string } }).launch?.via === 'fork-server';
        await sample('terminal.pytest-forked', 'test command alone, forked by the fork server', options.repeat, () => terminal.run(testCommand, { python }), forked);
      } else {
        progress.log(`${backend}: no fork server (${status.reason ?? 'not ready'}): the forked test command is not measured`);
      }
    }
    await pdbProtocol(terminal, task, options, rows, progress, backend);
  } finally {
    await terminal.close().catch(() => undefined);
  }
  return rows;
}

/**
 * A bare `python -m pdb` session on the task (no tool, no framework): how long pdb takes to reach its
 * first prompt, one PTY round trip (`p 1`), and the original's four round trips per agent command
 * (the command, then `b`, `where`, `l .` to read breakpoints and the frame).
 */
async function pdbProtocol(
  terminal: InstrumentedTerminal,
  task: PerfTask,
  options: TerminalSuiteOptions,
  rows: RowCollector,
  progress: Progress,
  backend: BackendName,
): Promise<void> {
  progress.phase(`${backend}: raw pdb session`);
  const command = `${terminal.python} -m pdb -m pytest --tb=no -s test.py`;
  const meter = new Meter(cpuProbe(terminal), terminal);
  const prompted = (value: unknown): boolean => (value as { promptSeen: boolean }).promptSeen;
  const openings: Sample[] = [];
  const session = await (async () => {
    let open = await terminal.openSession(command, { prompt: PDB_PROMPT, timeoutMs: 60_000 });
    for (let index = 0; index < Math.min(options.repeat, 5) + 1; index++) {
      if (index > 0) {
        await open.close();
        await meter.settle();
        const opened = await meter.measure(async () => {
          open = await terminal.openSession(command, { prompt: PDB_PROMPT, timeoutMs: 60_000 });
          return open.read();
        }, prompted);
        openings.push(opened.sample);
      } else {
        await open.read();
      }
    }
    return open;
  })();
  for (const opened of openings) rows.add('pdb.open', 'pdb-protocol', 'raw pdb: start to first prompt', opened);
  try {
    await session.send(`b ${task.codeFile}:${task.breakLine}`);
    await session.send('c');
    const total = options.warmup + options.primitiveRepeat;
    for (let index = 0; index < total; index++) {
      const one = await meter.measure(() => session.send('p 1'), prompted);
      const four = await meter.measure(async () => {
        await session.send('p 1');
        await session.send('b');
        await session.send('where');
        return session.send('l .');
      }, prompted);
      if (index >= options.warmup) {
        rows.add('pdb.round-trip', 'pdb-protocol', 'raw pdb: 1 round trip (p 1)', one.sample);
        rows.add('pdb.four-trips', 'pdb-protocol', "raw pdb: original's 4 trips (cmd, b, where, l .)", four.sample);
      }
      progress.tick(2);
    }
  } finally {
    await session.close();
  }
}
