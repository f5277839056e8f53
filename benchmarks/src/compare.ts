/** `--compare baseline.json`: the ratio current / baseline per row (median) and per throughput run (wall time). */
import Table from 'cli-table3';
import type { PerfReport } from './report-types.js';
import { formatMs } from './stats.js';

export interface Comparison {
  terminal: string;
  id: string;
  label: string;
  baseline: number;
  current: number;
  /** current / baseline: below 1 is faster. */
  ratio: number;
  /** The same ratio for this process's CPU per operation (far less noisy on a shared machine), when both runs have it. */
  cpuRatio: number | null;
}

export function compareReports(current: PerfReport, baseline: PerfReport): Comparison[] {
  const out: Comparison[] = [];
  for (const backend of current.backends) {
    const before = baseline.backends.find((candidate) => candidate.terminal === backend.terminal && candidate.status === 'ok');
    if (!before || backend.status !== 'ok') continue;
    for (const row of backend.rows) {
      const old = before.rows.find((candidate) => candidate.id === row.id);
      if (!old || old.median <= 0) continue;
      const cpuRatio = old.cpuNodeMs && row.cpuNodeMs !== null ? row.cpuNodeMs / old.cpuNodeMs : null;
      out.push({ terminal: backend.terminal, id: row.id, label: row.label, baseline: old.median, current: row.median, ratio: row.median / old.median, cpuRatio });
    }
    for (const run of backend.throughput) {
      // Cold and fork-server runs of the same shape are different rows (older reports have no flag: fork server).
      // Fresh-fork runs (no standbys) too; older reports have neither flag.
      // Local runs without the zygote too.
      const forked = run.forkServer !== false;
      const fresh = run.standbys === false;
      const own = run.zygote === false;
      const old = before.throughput.find(
        (candidate) =>
          candidate.parallel === run.parallel &&
          candidate.steps === run.steps &&
          (candidate.forkServer !== false) === forked &&
          (candidate.standbys === false) === fresh &&
          (candidate.zygote === false) === own,
      );
      const kind = !forked ? ['.cold', ', cold'] : fresh ? ['.fresh', ', no standbys'] : own ? ['.own', ', no zygote'] : ['', ''];
      if (old && old.wallMs > 0) {
        out.push({
          terminal: backend.terminal,
          id: `throughput.${run.parallel}x${run.steps}${kind[0]}`,
          label: `${run.parallel} parallel × (reset + ${run.steps} steps)${kind[1]}, wall`,
          baseline: old.wallMs,
          current: run.wallMs,
          ratio: run.wallMs / old.wallMs,
          cpuRatio: null,
        });
      }
    }
  }
  return out;
}

export function renderComparison(comparisons: readonly Comparison[], current: PerfReport, baseline: PerfReport): string {
  if (comparisons.length === 0) return 'compare: no rows in common with the baseline.\n';
  const table = new Table({
    head: ['terminal', 'row', 'baseline', 'current', 'ratio', 'cpu node ratio'],
    colAligns: ['left', 'left', 'right', 'right', 'right', 'right'],
    style: { head: [], border: [] },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  for (const item of comparisons) {
    const mark = item.ratio >= 1.25 ? '  slower' : item.ratio <= 0.8 ? '  faster' : '';
    table.push([item.terminal, item.label, formatMs(item.baseline), formatMs(item.current), `${item.ratio.toFixed(2)}×${mark}`, item.cpuRatio === null ? '' : `${item.cpuRatio.toFixed(2)}×`]);
  }
  const loads = `load at start: baseline ${baseline.machine.loadStart.join(' ')}, current ${current.machine.loadStart.join(' ')}`;
  const sameMachine = baseline.machine.cpuModel === current.machine.cpuModel && baseline.machine.cores === current.machine.cores;
  const warning = sameMachine ? '' : `\nwarning: different machines (${baseline.machine.cpuModel} × ${baseline.machine.cores} vs ${current.machine.cpuModel} × ${current.machine.cores})`;
  return `compare with ${baseline.createdAt} (medians in ms; ratio = current / baseline; ±25% marked)\n${loads}${warning}\n${table.toString()}\n`;
}
