/**
 * env.fork(): an env without pdb (sandbox + working copy + state: the "fork ≤ 30 ms" case),
 * and the perf env with pdb stopped at a breakpoint (its session re-created by replaying its input:
 * reported separately). The clone's close is not measured.
 */
import type { RepoEnv } from '@debug-gym/core';
import { type BackendName, type BackendSettings, makeTerminal } from './backends.js';
import { Meter } from './meter.js';
import { createPerfEnv, PERF_TOOLS } from './perf-env.js';
import type { Progress } from './progress.js';
import { RowCollector } from './rows.js';
import { toolCycle } from './scenario.js';
import type { PerfTask } from './task.js';

export function forkSuiteUnits(options: { repeat: number; warmup: number }): number {
  return (options.warmup + options.repeat) * 2;
}

export async function runForkSuite(backend: BackendName, settings: BackendSettings, task: PerfTask, options: { repeat: number; warmup: number }, progress: Progress): Promise<RowCollector> {
  const rows = new RowCollector();
  progress.phase(`${backend}: env.fork()`);
  const withoutPdb = PERF_TOOLS.filter((tool) => (tool as { name?: string }).name !== 'pdb');
  const plain = createPerfEnv(task, await makeTerminal(backend, settings), withoutPdb);
  const debugging = createPerfEnv(task, await makeTerminal(backend, settings));
  try {
    await plain.reset();
    await debugging.reset();
    // pdb stopped at the task's breakpoint: what a fork has to replay.
    for (const step of toolCycle(task, 0).filter((item) => item.id === 'pdb-b' || item.id === 'pdb-c-first' || item.id === 'pdb-p')) await debugging.step(step.call);
    for (const [env, id, label] of [
      [plain, 'fork.env', 'env.fork() (no pdb session)'],
      [debugging, 'fork.env-pdb', 'env.fork() with pdb at a breakpoint (b, c, p replayed)'],
    ] as Array<[RepoEnv, string, string]>) {
      const meter = new Meter(() => null);
      for (let index = 0; index < options.warmup + options.repeat; index++) {
        await meter.settle();
        let clone: RepoEnv | undefined;
        const { sample } = await meter.measure(async () => (clone = await env.fork()), () => (clone?.forkWarnings.length ?? 1) === 0);
        await clone?.close();
        if (index >= options.warmup) rows.add(id, 'fork', label, sample);
        progress.tick();
      }
    }
  } finally {
    await Promise.all([plain.close(), debugging.close()].map((closing) => closing.catch(() => undefined)));
  }
  return rows;
}
