/** Every measurement of one backend: terminal primitives, reset and steps, overhead, throughput. */
import { type BackendName, type BackendSettings, backendPython, probeBackend, warmZygote } from './backends.js';
import type { PerfOptions } from './options.js';
import type { Progress } from './progress.js';
import type { BackendReport, Row } from './report-types.js';
import { coldSuiteUnits, runColdSuite } from './suite-cold.js';
import { poolSuiteUnits, runPoolSuite } from './suite-pool.js';
import { forkSuiteUnits, runForkSuite } from './suite-fork.js';
import { runStepSuite, stepSuiteUnits } from './suite-steps.js';
import { runTerminalSuite, terminalSuiteUnits } from './suite-terminal.js';
import { runThroughput, throughputPlans, throughputUnits } from './suite-throughput.js';
import type { PerfTask } from './task.js';

export function plannedUnits(task: PerfTask, options: PerfOptions, backend: BackendName): number {
  return terminalSuiteUnits(options) + stepSuiteUnits(task, options) + coldSuiteUnits(options) + poolSuiteUnits(options) + forkSuiteUnits(options) + throughputUnits(throughputPlans(options.parallel, backend));
}

export async function runBackend(
  backend: BackendName,
  settings: BackendSettings,
  task: PerfTask,
  options: PerfOptions,
  progress: Progress,
): Promise<BackendReport> {
  const started = performance.now();
  const base = {
    terminal: backend,
    python: backendPython(backend, settings),
    pythonVersion: null as string | null,
    ...(backend === 'docker' ? { image: settings.dockerImage } : {}),
  };
  progress.phase(`${backend}: checking the sandbox`);
  const probe = await probeBackend(backend, settings);
  if (!probe.ok) {
    progress.tick(plannedUnits(task, options, backend));
    return { ...base, status: options.all ? 'skipped' : 'failed', reason: probe.reason, durationMs: 0, rows: [], throughput: [] };
  }
  base.pythonVersion = probe.version;
  const rows: Row[] = [];
  try {
    // What any long-running process has after its first local episode: the zygote.
    await warmZygote(backend, settings);
    const steps = await runStepSuite(backend, settings, task, options, progress);
    const pooled = await runPoolSuite(backend, settings, task, options, progress);
    const cold = await runColdSuite(backend, settings, task, options, progress);
    const forks = await runForkSuite(backend, settings, task, options, progress);
    const terminal = await runTerminalSuite(backend, settings, task, options, progress);
    rows.push(...pooled.rows(), ...steps.rows(), ...cold.rows(), ...forks.rows(), ...terminal.rows());
    const throughput = await runThroughput(backend, settings, task, throughputPlans(options.parallel, backend), progress);
    return { ...base, status: 'ok', durationMs: Math.round(performance.now() - started), rows, throughput };
  } catch (error) {
    const reason = `${(error as Error).name}: ${(error as Error).message}`;
    progress.log(`${backend}: measurement failed: ${reason}`);
    return { ...base, status: 'failed', reason, durationMs: Math.round(performance.now() - started), rows, throughput: [] };
  }
}
