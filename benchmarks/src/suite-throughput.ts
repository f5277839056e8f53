/**
 * Throughput: K episodes at once (reset + scripted steps + close each), as a rollout worker pool
 * would run them. Wall time from the first reset to the last close; memory sampled all along.
 */
import type { RepoEnv, Terminal } from '@debug-gym/core';
import { type BackendName, type BackendSettings, makeTerminal, warmZygote } from './backends.js';
import { Meter } from './meter.js';
import { createPerfEnv } from './perf-env.js';
import type { Progress } from './progress.js';
import type { ThroughputRun } from './report-types.js';
import { machineCpuMs } from './proc-stats.js';
import { MemorySampler, containerIdOf, cpuProbe } from './sandbox-probe.js';
import { episodeSteps } from './scenario.js';
import { round } from './stats.js';
import type { PerfTask } from './task.js';

export interface ThroughputPlan {
  parallel: number;
  steps: number;
  /** False: the same episodes with every Python process cold (default true). */
  forkServer?: boolean;
  /** False: the fork server forks every run fresh (no standbys; default true). */
  standbys?: boolean;
  /** False: each local sandbox starts its own fork server, not forked by the zygote (default true). */
  zygote?: boolean;
}

/** The K list with the full 20-step episode, plus (when K reaches 8) the 8 × (reset + 10 steps) run the original was measured on. */
export function throughputPlans(parallel: readonly number[], backend?: BackendName): ThroughputPlan[] {
  const plans: ThroughputPlan[] = parallel.map((count) => ({ parallel: count, steps: 20 }));
  if (Math.max(...parallel) >= 8) plans.push({ parallel: 8, steps: 10 });
  // The fork server's throughput target is against the cold path: the same run, side by side.
  if (parallel.includes(8)) plans.push({ parallel: 8, steps: 20, forkServer: false }, { parallel: 8, steps: 20, standbys: false });
  if (parallel.includes(8) && backend === 'local') plans.push({ parallel: 8, steps: 20, zygote: false });
  return plans;
}

export function throughputUnits(plans: readonly ThroughputPlan[]): number {
  return plans.reduce((sum, plan) => sum + plan.parallel * (plan.steps + 1), 0);
}

const MB = 2 ** 20;

export async function runThroughput(
  backend: BackendName,
  settings: BackendSettings,
  task: PerfTask,
  plans: readonly ThroughputPlan[],
  progress: Progress,
): Promise<ThroughputRun[]> {
  const runs: ThroughputRun[] = [];
  const steps = episodeSteps(task);
  for (const plan of plans) {
    if (plan.zygote !== false && plan.forkServer !== false) await warmZygote(backend, settings);
    const cold = plan.forkServer === false;
    const fresh = !cold && plan.standbys === false;
    const own = !cold && plan.zygote === false;
    progress.phase(`${backend}: ${plan.parallel} parallel episode${plan.parallel > 1 ? 's' : ''} (reset + ${plan.steps} steps)${cold ? ', cold' : fresh ? ', no standbys' : own ? ', no zygote' : ''}`);
    const terminals: Terminal[] = [];
    const envs: RepoEnv[] = [];
    for (let index = 0; index < plan.parallel; index++) {
      const terminal = await makeTerminal(backend, settings, { zygote: !own });
      terminals.push(terminal);
      envs.push(createPerfEnv(task, terminal, undefined, !cold, !fresh));
    }
    // Start from a quiet machine: the previous run's sandboxes are gone.
    await new Meter(cpuProbe(terminals[0] as Terminal)).settle();
    const sampler = new MemorySampler(backend, () => terminals.map((terminal) => containerIdOf(terminal)).filter((id): id is string => !!id));
    let unexpected = 0;
    let failures = 0;
    sampler.start();
    const cpuAtStart = machineCpuMs();
    const start = performance.now();
    await Promise.all(
      envs.map(async (env) => {
        try {
          await env.reset();
          progress.tick();
          for (const step of steps.slice(0, plan.steps)) {
            const info = await env.step(step.call);
            if (!step.expect.test(info.stepObservation.observation)) unexpected += 1;
            progress.tick();
          }
        } catch (error) {
          failures += 1;
          progress.log(`${backend}: an episode failed: ${(error as Error).message}`);
        } finally {
          await env.close().catch(() => undefined);
        }
      }),
    );
    const wallMs = performance.now() - start;
    const cpuAtEnd = machineCpuMs();
    const peaks = sampler.stop();
    const episodes = plan.parallel - failures;
    runs.push({
      parallel: plan.parallel,
      steps: plan.steps,
      wallMs: round(wallMs, 1),
      episodesPerMinute: round((episodes * 60_000) / wallMs, 2),
      stepsPerSecond: round((episodes * plan.steps * 1000) / wallMs, 2),
      nodePeakRssMb: round(peaks.nodePeakBytes / MB, 1),
      sandboxPeakRssMb: peaks.sandboxPeakBytes === null ? null : round(peaks.sandboxPeakBytes / MB, 1),
      machineCpuMs: cpuAtStart === null || cpuAtEnd === null ? null : round(cpuAtEnd - cpuAtStart, 0),
      unexpected,
      failures,
      ...(cold ? { forkServer: false } : {}),
      ...(fresh ? { standbys: false } : {}),
      ...(own ? { zygote: false } : {}),
    });
  }
  return runs;
}
