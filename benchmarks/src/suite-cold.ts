/**
 * The rows the fork server changes, measured again with it off (`forkServer: false`) in the same
 * run, so the two paths are compared under the same load: reset, the first rewrite after reset (pdb
 * restarts without a standby) and eval.
 */
import { type BackendName, type BackendSettings, makeTerminal } from './backends.js';
import { InstrumentedTerminal } from './instrumented-terminal.js';
import { Meter } from './meter.js';
import { createPerfEnv, PERF_TOOLS } from './perf-env.js';
import type { Progress } from './progress.js';
import { RowCollector } from './rows.js';
import { cpuProbe } from './sandbox-probe.js';
import { resetDone } from './suite-steps.js';
import { rewriteStep, toolCycle } from './scenario.js';
import { measureEvalAfterRewrite } from './eval-after-rewrite.js';
import type { PerfTask } from './task.js';

export interface ColdSuiteOptions {
  repeat: number;
  warmup: number;
}

export function coldSuiteUnits(options: ColdSuiteOptions): number {
  return (options.warmup + options.repeat) * 4;
}

export async function runColdSuite(backend: BackendName, settings: BackendSettings, task: PerfTask, options: ColdSuiteOptions, progress: Progress): Promise<RowCollector> {
  const rows = new RowCollector();
  const terminal = new InstrumentedTerminal(await makeTerminal(backend, settings));
  const env = createPerfEnv(task, terminal, PERF_TOOLS, false);
  const evalStep = toolCycle(task, 0).find((step) => step.id === 'eval');
  progress.phase(`${backend}: the same rows with the fork server off`);
  try {
    const meter = new Meter(cpuProbe(terminal), terminal);
    for (let index = 0; index < options.warmup + options.repeat; index++) {
      const keep = index >= options.warmup;
      await meter.settle();
      const reset = await meter.measure(() => env.reset(), resetDone);
      if (keep) rows.add('cold.reset', 'cold', 'reset() (cold)', reset.sample);
      progress.tick();
      const rewrite = rewriteStep(task, index);
      await meter.settle();
      const restarted = await meter.measure(() => env.step(rewrite.call), (info) => rewrite.expect.test(info.stepObservation.observation));
      if (keep) rows.add('cold.rewrite-cold', 'cold', 'rewrite right after reset (cold pdb restart, cold)', restarted.sample);
      progress.tick();
      if (evalStep) {
        await meter.settle();
        const evaluated = await meter.measure(() => env.step(evalStep.call), (info) => evalStep.expect.test(info.stepObservation.observation));
        if (keep) rows.add('cold.eval', 'cold', 'eval (pytest run, cold)', evaluated.sample);
      }
      progress.tick();
    }
    const row = { id: 'cold.eval-after-rewrite', section: 'cold' as const, label: 'eval right after a rewrite (standby starting, cold)' };
    await measureEvalAfterRewrite(env, task, options, meter, rows, row, () => progress.tick());
  } finally {
    await env.close().catch(() => undefined);
  }
  return rows;
}
