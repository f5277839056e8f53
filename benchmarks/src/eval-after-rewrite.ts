/**
 * `eval` called right after a rewrite, with no pause: pdb restarts from its standby and starts the
 * next standby in the background while the tests run — the contention an RL rollout (or any agent
 * that evaluates right after editing) meets. Measured on the fork server and cold alike.
 */
import type { RepoEnv } from '@debug-gym/core';
import type { Meter } from './meter.js';
import type { RowCollector } from './rows.js';
import { rewriteStep, toolCycle } from './scenario.js';
import type { Section } from './report-types.js';
import type { PerfTask } from './task.js';

export async function measureEvalAfterRewrite(
  env: RepoEnv,
  task: PerfTask,
  options: { repeat: number; warmup: number },
  meter: Meter,
  rows: RowCollector,
  row: { id: string; section: Section; label: string },
  tick: () => void,
): Promise<void> {
  const evalStep = toolCycle(task, 0).find((step) => step.id === 'eval');
  if (!evalStep) return;
  for (let index = 0; index < options.warmup + options.repeat; index++) {
    await meter.settle();
    const rewrite = rewriteStep(task, 100 + index);
    await env.step(rewrite.call);
    const { sample } = await meter.measure(() => env.step(evalStep.call), (info) => evalStep.expect.test(info.stepObservation.observation));
    if (index >= options.warmup) rows.add(row.id, row.section, row.label, sample, 'no pause after the rewrite: the next pdb standby starts while the tests run');
    tick();
  }
}
