/**
 * reset() on a terminal whose sandboxes come from a warm pool (started, fork server ready): what
 * reset costs when nothing has to start. Each sample waits until the pool is full again and the
 * previous sandbox is closed (before, it waited 200 ms, and a Docker refill often still ran).
 */
import { SandboxPool } from '@debug-gym/terminal';
import { type BackendName, type BackendSettings, makeTerminal } from './backends.js';
import { InstrumentedTerminal } from './instrumented-terminal.js';
import { Meter } from './meter.js';
import { createPerfEnv } from './perf-env.js';
import type { Progress } from './progress.js';
import { RowCollector } from './rows.js';
import { resetDone } from './suite-steps.js';
import type { PerfTask } from './task.js';

export function poolSuiteUnits(options: { repeat: number; warmup: number }): number {
  return options.warmup + options.repeat;
}

export async function runPoolSuite(backend: BackendName, settings: BackendSettings, task: PerfTask, options: { repeat: number; warmup: number }, progress: Progress): Promise<RowCollector> {
  const rows = new RowCollector();
  progress.phase(`${backend}: reset() from a warm pool`);
  const pool = await SandboxPool.create({ size: 1, create: () => makeTerminal(backend, settings) });
  const pooled = pool.terminal();
  const terminal = new InstrumentedTerminal(pooled);
  const env = createPerfEnv(task, terminal);
  try {
    const meter = new Meter(() => null, terminal);
    for (let index = 0; index < options.warmup + options.repeat; index++) {
      // The previous sandbox's close and the pool's refill run in the background: let them finish
      // (a warm pool is one whose sandbox is started), then let their processes' exits settle.
      await pooled.settled();
      await new Promise((resolve) => setTimeout(resolve, 200));
      const { sample } = await meter.measure(() => env.reset(), resetDone);
      if (index >= options.warmup) rows.add('reset.pooled', 'reset', 'reset() from a warm pool (sandbox started, fork server ready)', sample);
      progress.tick();
    }
  } finally {
    await env.close().catch(() => undefined);
    await pool.close();
  }
  return rows;
}
