/**
 * The report as Markdown (`--markdown RESULTS.md`): the headline against the original and our targets,
 * the same rows beside a previous run's (with `--compare`), then every row, so the committed results are exactly what the command printed.
 */
import type { Comparison } from './compare.js';
import { BEFORE_FORK_SERVER_EPISODES_PER_MINUTE, referenceFor, throughputReference, verdict } from './references.js';
import { cpuPerEpisode, formatCalls, launchPath, resetBreakdown } from './render.js';
import type { BackendReport, PerfReport, Row } from './report-types.js';
import { formatMs } from './stats.js';

const SECTION_TITLES: Record<string, string> = {
  reset: 'reset',
  step: 'one step, real terminal',
  cold: 'the same with the fork server off (forkServer: false)',
  fork: "env.fork() (the clone's close not counted)",
  overhead: 'pure overhead (no-op terminal: framework only)',
  'pdb-protocol': 'pdb protocol (raw session, no framework)',
  terminal: 'terminal primitives',
};

/** Rows without a target of their own that explain the others (reset's test run, pdb's round trips). */
const CONTEXT_ROWS = ['terminal.pytest', 'terminal.pytest-forked', 'cold.reset', 'step.eval', 'cold.eval', 'step.eval-after-rewrite', 'cold.eval-after-rewrite', 'fork.env-pdb', 'cold.rewrite-cold', 'step.pdb-c-first', 'pdb.round-trip', 'pdb.four-trips'];
const HEADLINE_ROWS = ['reset', 'reset.pooled', 'cold.reset', 'step.eval', 'cold.eval', 'step.eval-after-rewrite', 'cold.eval-after-rewrite', 'terminal.pytest', 'terminal.pytest-forked', 'step.rewrite-cold', 'cold.rewrite-cold', 'fork.env', 'fork.env-pdb', 'step.view', 'step.listdir', 'step.rewrite', 'step.pdb-b', 'step.pdb-p', 'step.pdb-n', 'step.pdb-l', 'step.pdb-c-next', 'step.pdb-c-first', 'pdb.round-trip', 'pdb.four-trips'];

const cell = (text: string): string => text.replace(/\|/g, '\\|');

function headline(report: PerfReport): string {
  const lines = ['| terminal | measure | original (median) | target | ours: median | p95 | verdict |', '| --- | --- | ---: | ---: | ---: | ---: | --- |'];
  for (const backend of report.backends.filter((candidate) => candidate.status === 'ok')) {
    for (const id of HEADLINE_ROWS) {
      const row = backend.rows.find((candidate) => candidate.id === id);
      const reference = referenceFor(backend.terminal, id) ?? (CONTEXT_ROWS.includes(id) ? {} : undefined);
      if (!row || !reference) continue;
      const target = reference.below === undefined ? '' : `< ${reference.below} ms${reference.condition ? ` (${reference.condition})` : ''}`;
      lines.push(`| ${backend.terminal} | ${cell(row.label)} | ${reference.original ?? ''} | ${target} | ${formatMs(row.median)} ms | ${formatMs(row.p95)} ms | ${verdict(reference, row.median)} |`);
    }
    for (const run of backend.throughput) {
      const reference = throughputReference(backend.terminal, run.parallel, run.steps);
      if (!reference) continue;
      lines.push(
        `| ${backend.terminal} | ${run.parallel} parallel episodes (reset + ${run.steps} steps), wall | ${reference.original ?? ''} | < ${(reference.below ?? 0) / 1000} s | ${(run.wallMs / 1000).toFixed(2)} s | | ${verdict(reference, run.wallMs)} |`,
      );
    }
    // #15's throughput target: episodes per minute with the fork server against the cold path, same run.
    const shape = (run: (typeof backend.throughput)[number]): boolean => run.parallel === 8 && run.steps === 20;
    const forked = backend.throughput.find((run) => shape(run) && run.forkServer !== false && run.standbys !== false && run.zygote !== false);
    const cold = backend.throughput.find((run) => shape(run) && run.forkServer === false);
    if (forked && cold && cold.episodesPerMinute > 0) {
      const ratio = forked.episodesPerMinute / cold.episodesPerMinute;
      lines.push(`| ${backend.terminal} | episodes/min at 8 parallel (reset + 20 steps), fork server ÷ cold | | ≥ 3× | ${ratio.toFixed(2)}× | | ${ratio >= 3 ? 'met' : 'MISSED'} |`);
    }
    // The same against the issue's "today's": the last run before the fork server (the cold path has got faster since).
    const before = BEFORE_FORK_SERVER_EPISODES_PER_MINUTE[backend.terminal];
    if (forked && before) {
      const ratio = forked.episodesPerMinute / before;
      lines.push(`| ${backend.terminal} | episodes/min at 8 parallel (reset + 20 steps), fork server ÷ before #15 | ${before}/min | ≥ 3× | ${ratio.toFixed(2)}× | | ${ratio >= 3 ? 'met' : 'MISSED'} |`);
    }
  }
  return lines.join('\n');
}

/** `--compare` with `--markdown`: the headline rows and the throughput runs beside the baseline's. */
function againstPrevious(baseline: PerfReport, comparisons: readonly Comparison[]): string {
  const lines = [
    `Baseline: the run of ${baseline.createdAt} (load at its start ${baseline.machine.loadStart.join(' / ')}). Ratio = now / previous: below 1 is faster.`,
    '',
    '| terminal | measure | previous (median) | now (median) | ratio |',
    '| --- | --- | ---: | ---: | ---: |',
  ];
  const shown = comparisons.filter((item) => HEADLINE_ROWS.includes(item.id) || item.id.startsWith('throughput.'));
  for (const item of shown) {
    const unit = item.id.startsWith('throughput.') ? (ms: number) => `${(ms / 1000).toFixed(2)} s` : (ms: number) => `${formatMs(ms)} ms`;
    lines.push(`| ${item.terminal} | ${cell(item.label)} | ${unit(item.baseline)} | ${unit(item.current)} | ${item.ratio.toFixed(2)}× |`);
  }
  return lines.join('\n');
}

function rowsTable(backend: BackendReport): string {
  const lines = ['| row | n | median | p95 | p99 | cpu node | cpu sandbox | terminal calls |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |'];
  let section = '';
  for (const row of backend.rows) {
    if (row.section !== section) {
      section = row.section;
      lines.push(`| **${SECTION_TITLES[section] ?? section}** | | | | | | | |`);
    }
    lines.push(rowLine(row));
  }
  return lines.join('\n');
}

function rowLine(row: Row): string {
  const flag = row.unexpected > 0 ? ` (${row.unexpected} unexpected)` : '';
  return `| ${cell(row.label)}${flag} | ${row.n} | ${formatMs(row.median)} | ${formatMs(row.p95)} | ${formatMs(row.p99)} | ${formatMs(row.cpuNodeMs)} | ${formatMs(row.cpuSandboxMs)} | ${formatCalls(row.calls)} |`;
}

function throughputTable(backend: BackendReport): string {
  const lines = [
    '| parallel | steps | python | wall s | episodes/min | steps/s | machine CPU s per episode | node peak RSS MB | sandbox peak RSS MB | failed / unexpected |',
    '| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const run of backend.throughput) {
    lines.push(
      `| ${run.parallel} | ${run.steps} | ${launchPath(run)} | ${(run.wallMs / 1000).toFixed(2)} | ${run.episodesPerMinute.toFixed(1)} | ${run.stepsPerSecond.toFixed(1)} | ${cpuPerEpisode(run)} | ${run.nodePeakRssMb.toFixed(0)} | ${run.sandboxPeakRssMb === null ? '–' : run.sandboxPeakRssMb.toFixed(0)} | ${run.failures} / ${run.unexpected} |`,
    );
  }
  return lines.join('\n');
}

export interface PreviousRun {
  baseline: PerfReport;
  comparisons: readonly Comparison[];
}

export function renderMarkdown(report: PerfReport, previous?: PreviousRun): string {
  const m = report.machine;
  const parts = [
    '# Performance results',
    '',
    `Produced by \`${report.command}\` on ${report.createdAt} (${(report.durationMs / 1000).toFixed(0)} s). Method and how to read this: [README.md](README.md).`,
    '',
    '## Machine',
    '',
    `- CPU: ${m.cpuModel}, ${m.cores} cores; ${m.memoryGb} GB; ${m.os}, Linux ${m.kernel}`,
    `- Node ${m.node}; Python \`${m.python}\`: ${m.pythonVersion ?? 'unknown'}; Docker ${m.docker ?? 'none'}; ${m.bubblewrap ?? 'no bubblewrap'}`,
    `- Load average (1/5/15 min): **${m.loadStart.join(' / ')}** at the start, **${m.loadEnd.join(' / ')}** at the end (a shared 2-core machine: read medians, expect tails to move)`,
    `- Task: mini-nightmare \`${report.options.task}\`; ${report.options.repeat} measured runs per row after ${report.options.warmup} warm-up, ${report.options.primitiveRepeat} samples per terminal primitive, ${report.options.overheadRepeat} cycles on the no-op terminal`,
    '',
    '## Headline: against the original and our targets',
    '',
    headline(report),
    '',
  ];
  if (previous) parts.push('## Against the previous run', '', againstPrevious(previous.baseline, previous.comparisons), '');
  for (const backend of report.backends) {
    parts.push(`## ${backend.terminal}`, '');
    if (backend.status !== 'ok') {
      parts.push(`${backend.status}: ${backend.reason ?? ''}`, '');
      continue;
    }
    parts.push(`Sandbox Python: ${backend.pythonVersion ?? backend.python}${backend.image ? `; image \`${backend.image}\`` : ''}. Milliseconds; cpu = mean per operation.`, '');
    parts.push(rowsTable(backend), '', resetBreakdown(backend), '', '### Throughput (each episode: reset + steps + close)', '', throughputTable(backend), '');
  }
  return `${parts.join('\n')}`;
}
