/** The readable tables (cli-table3): per backend, the latency rows and the throughput runs. */
import Table from 'cli-table3';
import type { CallCounts } from './instrumented-terminal.js';
import { referenceFor, throughputReference, verdict } from './references.js';
import type { BackendReport, PerfReport, Row, Section, ThroughputRun } from './report-types.js';
import { formatMs } from './stats.js';

const SECTION_TITLES: Record<Section, string> = {
  reset: 'reset',
  step: 'one step (real terminal)',
  cold: 'the same with the fork server off (forkServer: false)',
  fork: 'env.fork() (the clone\'s close not counted)',
  overhead: 'pure overhead (no-op terminal: framework only)',
  'pdb-protocol': 'pdb protocol (raw session, no framework)',
  terminal: 'terminal primitives',
};
const SECTION_ORDER: Section[] = ['reset', 'step', 'cold', 'fork', 'overhead', 'pdb-protocol', 'terminal'];

/** Box lines without a rule between rows: a long table stays readable. */
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function formatCalls(calls: CallCounts | null): string {
  if (!calls) return '';
  const parts: string[] = [];
  const add = (value: number, name: string): void => {
    if (value > 0) parts.push(`${Number.isInteger(value) ? value : value.toFixed(1)} ${name}`);
  };
  add(calls.run, 'run');
  add(calls.file, 'file');
  add(calls.sessionOpen, 'open');
  add(calls.sessionSend, 'send');
  add(calls.sessionRead, 'read');
  add(calls.sessionInterrupt, 'intr');
  return parts.join(', ');
}

function targetText(terminal: string, row: Row): string {
  const reference = referenceFor(terminal, row.id);
  if (reference?.below === undefined) return '';
  return `< ${reference.below} ms ${verdict(reference, row.median)}`;
}

export function renderBackend(backend: BackendReport): string {
  if (backend.status !== 'ok') return `${backend.terminal}: ${backend.status.toUpperCase()} — ${backend.reason ?? ''}\n`;
  const table = new Table({
    head: ['', 'n', 'median', 'p95', 'p99', 'cpu node', 'cpu sandbox', 'terminal calls', 'original', 'target'],
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'right', 'left'],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const section of SECTION_ORDER) {
    const rows = backend.rows.filter((row) => row.section === section);
    if (rows.length === 0) continue;
    table.push([SECTION_TITLES[section].toUpperCase(), '', '', '', '', '', '', '', '', '']);
    for (const row of rows) {
      const flag = row.unexpected > 0 ? ` (!${row.unexpected})` : '';
      table.push([
        `  ${row.label}${flag}`,
        String(row.n),
        formatMs(row.median),
        formatMs(row.p95),
        formatMs(row.p99),
        formatMs(row.cpuNodeMs),
        formatMs(row.cpuSandboxMs),
        formatCalls(row.calls),
        referenceFor(backend.terminal, row.id)?.original ?? '',
        targetText(backend.terminal, row),
      ]);
    }
  }
  const header = `${backend.terminal} — ${backend.pythonVersion ?? backend.python}${backend.image ? ` — image ${backend.image}` : ''} (milliseconds; cpu = mean per operation)`;
  const breakdown = resetBreakdown(backend);
  return `${header}\n${table.toString()}\n${breakdown ? `${breakdown}\n` : ''}${renderThroughput(backend)}`;
}

/** Where reset's time goes: mean milliseconds inside each kind of terminal call (the test run and pdb overlap). */
export function resetBreakdown(backend: BackendReport): string {
  const reset = backend.rows.find((row) => row.id === 'reset');
  if (!reset?.terminalMs) return '';
  const names: Record<string, string> = { start: 'sandbox (close old + start new)', copyIn: 'copy in', run: 'test run', session: 'pdb sessions (start-up reads, open)', file: 'file calls' };
  const parts = Object.entries(reset.terminalMs)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${names[kind] ?? kind} ${formatMs(ms)}`);
  return `${backend.terminal}: reset ${formatMs(reset.median)} ms median; inside terminal calls, mean ms (test run and pdb overlap): ${parts.join(', ')}`;
}

/** How the throughput run's Python processes started. */
export function launchPath(run: ThroughputRun): string {
  if (run.forkServer === false) return 'cold';
  if (run.zygote === false) return 'fork server, no zygote';
  return run.standbys === false ? 'fork server, no standbys' : 'fork server';
}

/** Machine CPU seconds per episode of a throughput run (`–` when not measured). */
export function cpuPerEpisode(run: ThroughputRun): string {
  return run.machineCpuMs === null || run.machineCpuMs === undefined ? '–' : (run.machineCpuMs / 1000 / run.parallel).toFixed(2);
}

export function renderThroughput(backend: BackendReport): string {
  if (backend.throughput.length === 0) return '';
  const table = new Table({
    head: ['parallel', 'steps', 'python', 'wall s', 'episodes/min', 'steps/s', 'CPU s/episode', 'node peak MB', 'sandbox peak MB', 'original', 'target'],
    colAligns: ['right', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'],
    style: { head: [], border: [] },
    chars: COMPACT,
  });
  for (const run of backend.throughput) {
    const reference = throughputReference(backend.terminal, run.parallel, run.steps);
    const problems = run.failures || run.unexpected ? ` (!${run.failures} failed, ${run.unexpected} unexpected)` : '';
    table.push([
      `${run.parallel}${problems}`,
      String(run.steps),
      launchPath(run),
      (run.wallMs / 1000).toFixed(2),
      run.episodesPerMinute.toFixed(1),
      run.stepsPerSecond.toFixed(1),
      cpuPerEpisode(run),
      run.nodePeakRssMb.toFixed(0),
      run.sandboxPeakRssMb === null ? '–' : run.sandboxPeakRssMb.toFixed(0),
      reference?.original ?? '',
      reference?.below === undefined ? '' : `< ${reference.below / 1000} s ${verdict(reference, run.wallMs)}`,
    ]);
  }
  return `${backend.terminal}: throughput (each episode: reset + steps + close)\n${table.toString()}\n`;
}

export function renderMachine(report: PerfReport): string {
  const m = report.machine;
  return [
    `machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Linux ${m.kernel}`,
    `node ${m.node}; python ${m.python}: ${m.pythonVersion ?? 'unknown'}; docker ${m.docker ?? 'none'}; ${m.bubblewrap ?? 'no bubblewrap'}`,
    `load average (1/5/15 min): start ${m.loadStart.join(' ')}, end ${m.loadEnd.join(' ')}`,
    `task mini-nightmare/${report.options.task}; repeat ${report.options.repeat} (+${report.options.warmup} warm-up), primitives ${report.options.primitiveRepeat}, overhead ${report.options.overheadRepeat}; ${(report.durationMs / 1000).toFixed(0)} s in all`,
  ].join('\n');
}

export function renderReport(report: PerfReport): string {
  return [renderMachine(report), '', ...report.backends.map(renderBackend)].join('\n');
}
