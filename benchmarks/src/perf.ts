#!/usr/bin/env node
/**
 * `pnpm perf`: where the milliseconds of a debug-gym episode go, per terminal backend. See
 * benchmarks/README.md for the method and how to read the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { type BackendSettings, defaultBackendSettings } from './backends.js';
import { compareReports, renderComparison } from './compare.js';
import { describeMachine, loadAverage } from './machine.js';
import { type PerfOptions, parseOptions } from './options.js';
import { createProgress } from './progress.js';
import { renderMarkdown } from './render-markdown.js';
import { renderReport } from './render.js';
import { REPORT_FORMAT, type BackendReport, type PerfReport } from './report-types.js';
import { plannedUnits, runBackend } from './run-backend.js';
import { loadTask } from './task.js';
import { validateReport } from './validate-report.js';

function readReport(path: string): PerfReport {
  const report = JSON.parse(readFileSync(path, 'utf8')) as unknown;
  const problems = validateReport(report);
  if (problems.length > 0) throw new Error(`${path} is not a perf report:\n  ${problems.join('\n  ')}`);
  return report as PerfReport;
}

async function measure(options: PerfOptions, argv: readonly string[]): Promise<PerfReport> {
  const started = performance.now();
  const task = loadTask(options.dataPath, options.task);
  const settings: BackendSettings = {
    ...defaultBackendSettings(),
    python: options.python,
    ...(options.dockerImage ? { dockerImage: options.dockerImage } : {}),
  };
  const machine = await describeMachine(options.python);
  if (!process.env.DEBUG_GYM_PYTHON && options.python === 'python3') {
    process.stderr.write(
      `perf: DEBUG_GYM_PYTHON is not set: the host sandboxes run \`python3\` (${machine.pythonVersion ?? 'not found'}). ` +
        'Set DEBUG_GYM_PYTHON=/usr/bin/python3 (as CI does) for comparable numbers; see benchmarks/README.md.\n',
    );
  }
  const progress = createProgress(options.progress);
  progress.plan(options.terminals.reduce((sum, backend) => sum + plannedUnits(task, options, backend), 0));
  const backends: BackendReport[] = [];
  try {
    for (const backend of options.terminals) {
      const result = await runBackend(backend, settings, task, options, progress);
      if (result.status !== 'ok') progress.log(`${backend}: ${result.status}: ${result.reason}`);
      backends.push(result);
    }
  } finally {
    progress.stop();
  }
  machine.loadEnd = loadAverage();
  return {
    format: REPORT_FORMAT,
    createdAt: new Date().toISOString(),
    command: ['pnpm perf', ...argv].join(' '),
    options: {
      terminals: options.terminals,
      repeat: options.repeat,
      warmup: options.warmup,
      primitiveRepeat: options.primitiveRepeat,
      overheadRepeat: options.overheadRepeat,
      parallel: options.parallel,
      task: options.task,
      dataPath: options.dataPath,
    },
    machine,
    durationMs: Math.round(performance.now() - started),
    nodeMaxRssMb: Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10,
    backends,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const options = parseOptions(argv);
  // Read before anything is written: `--json FILE --compare FILE` compares with FILE's previous run.
  const baseline = options.compare ? readReport(options.compare) : null;
  const report = options.input ? readReport(options.input) : await measure(options, argv);
  const problems = validateReport(JSON.parse(JSON.stringify(report)));
  process.stdout.write(`${renderReport(report)}\n`);
  if (options.json && !options.input) {
    writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`wrote ${options.json}\n`);
  }
  const comparisons = baseline ? compareReports(report, baseline) : [];
  if (options.markdown) {
    writeFileSync(options.markdown, renderMarkdown(report, baseline ? { baseline, comparisons } : undefined));
    process.stdout.write(`wrote ${options.markdown}\n`);
  }
  if (baseline) process.stdout.write(renderComparison(comparisons, report, baseline));
  if (problems.length > 0) {
    process.stderr.write(`perf: the report does not match its schema:\n  ${problems.join('\n  ')}\n`);
    return 1;
  }
  const failed = report.backends.filter((backend) => backend.status === 'failed');
  if (failed.length > 0) {
    process.stderr.write(`perf: ${failed.map((backend) => `${backend.terminal} failed (${backend.reason})`).join('; ')}\n`);
    return 1;
  }
  if (report.backends.every((backend) => backend.status !== 'ok')) {
    process.stderr.write('perf: no backend could be measured.\n');
    return 1;
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`perf: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
