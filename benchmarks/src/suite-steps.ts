/**
 * reset() and one step of each tool on the real env, then the same calls on the no-op terminal
 * (replaying the real terminal's answers) for the framework's own cost.
 */
import type { EnvInfo, RepoEnv } from '@debug-gym/core';
import { type BackendName, type BackendSettings, makeTerminal } from './backends.js';
import { InstrumentedTerminal } from './instrumented-terminal.js';
import { Meter } from './meter.js';
import { createPerfEnv } from './perf-env.js';
import type { Progress } from './progress.js';
import { Recording } from './recording.js';
import { ReplayTerminal } from './replay-terminal.js';
import { RowCollector } from './rows.js';
import { cpuProbe } from './sandbox-probe.js';
import { rewriteStep, toolCycle } from './scenario.js';
import { measureEvalAfterRewrite } from './eval-after-rewrite.js';
import type { PerfTask } from './task.js';

export interface StepSuiteOptions {
  repeat: number;
  warmup: number;
  /** Cycles on the no-op terminal (cheap: use many). */
  overheadRepeat: number;
}

export function stepSuiteUnits(task: PerfTask, options: StepSuiteOptions): number {
  const cycle = toolCycle(task, 0).length;
  const coldRewrites = Math.max(0, options.repeat - 1);
  return (options.warmup + options.repeat) * (2 + cycle) + coldRewrites + (options.warmup + options.overheadRepeat) * (1 + cycle);
}

const RESET_NOTE = 'fresh sandbox + copy + first test run, pdb started alongside';
const COLD_REWRITE_NOTE = 'no standby yet: a new pdb process starts (forked by the fork server)';

/** A reset is what it claims when the tests ran and pdb reached its prompt. */
export function resetDone(info: EnvInfo): boolean {
  return info.lastEval !== null && /\b\d+ (passed|failed)/.test(info.lastEval.output) && info.allObservations.some((o) => o.source === 'pdb' && o.observation.startsWith('Starting pdb session'));
}

export async function runStepSuite(
  backend: BackendName,
  settings: BackendSettings,
  task: PerfTask,
  options: StepSuiteOptions,
  progress: Progress,
): Promise<RowCollector> {
  const rows = new RowCollector();
  const terminal = new InstrumentedTerminal(await makeTerminal(backend, settings));
  const recording = new Recording();
  const env = createPerfEnv(task, terminal);
  try {
    const meter = new Meter(cpuProbe(terminal), terminal);
    progress.phase(`${backend}: reset()`);
    const resets = options.warmup + options.repeat;
    for (let index = 0; index < resets; index++) {
      // The last reset is recorded: the no-op terminal replays it and every step after it.
      if (index === resets - 1) terminal.recorder = recording;
      await meter.settle();
      const { sample } = await meter.measure(() => env.reset(), resetDone);
      if (index >= options.warmup) rows.add('reset', 'reset', 'reset()', sample, RESET_NOTE);
      progress.tick();
      // The first restart of an episode has no warm standby yet (pdb's default policy). Not after
      // the last reset: the recording replayed on the no-op terminal starts there.
      if (index >= options.warmup && index < resets - 1) {
        const rewrite = rewriteStep(task, index);
        await meter.settle();
        const cold = await meter.measure(
          () => env.step(rewrite.call),
          (info) => rewrite.expect.test(info.stepObservation.observation),
        );
        rows.add('step.rewrite-cold', 'step', 'rewrite right after reset (cold pdb restart)', cold.sample, COLD_REWRITE_NOTE);
        progress.tick();
      }
    }
    Object.assign(recording, { kind: terminal.kind, workdir: terminal.workdir, python: terminal.python });

    progress.phase(`${backend}: one step of each tool`);
    await cycles(env, task, options.warmup, options.repeat, meter, rows, 'step', progress);
    terminal.recorder = null;
    progress.phase(`${backend}: eval right after a rewrite`);
    await measureEvalAfterRewrite(env, task, options, meter, rows, { id: 'step.eval-after-rewrite', section: 'step', label: 'eval right after a rewrite (standby starting)' }, () => progress.tick());
  } finally {
    terminal.recorder = null;
    await env.close().catch(() => undefined);
  }

  progress.phase(`${backend}: framework overhead (no-op terminal)`);
  const replay = createPerfEnv(task, new ReplayTerminal(recording));
  try {
    const meter = new Meter(() => null);
    for (let index = 0; index < options.warmup + options.overheadRepeat; index++) {
      const { sample } = await meter.measure(() => replay.reset());
      if (index >= options.warmup) rows.add('overhead.reset', 'overhead', 'reset()', sample);
      progress.tick();
    }
    await cycles(replay, task, options.warmup, options.overheadRepeat, meter, rows, 'overhead', progress);
  } finally {
    await replay.close().catch(() => undefined);
  }
  return rows;
}

async function cycles(
  env: RepoEnv,
  task: PerfTask,
  warmup: number,
  repeat: number,
  meter: Meter,
  rows: RowCollector,
  section: 'step' | 'overhead',
  progress: Progress,
): Promise<void> {
  for (let index = 0; index < warmup + repeat; index++) {
    for (const step of toolCycle(task, index)) {
      if (section === 'step') await meter.settle();
      const { sample } = await meter.measure(
        () => env.step(step.call),
        (info) => step.expect.test(info.stepObservation.observation),
      );
      if (index >= warmup) {
        rows.add(`${section}.${step.id}`, section, step.label, sample);
      }
      progress.tick();
    }
  }
}
