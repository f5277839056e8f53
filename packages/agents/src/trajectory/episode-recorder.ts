import { type EnvInfo, type ToolSchema } from '@debug-gym/spec';
import type { TokenUsage } from '../llm/types.js';
import { VERSION } from '../version.js';
import {
  TRAJECTORY_FORMAT_VERSION,
  type EpisodeResult,
  type EpisodeStatus,
  type StopReason,
  type Trajectory,
  type TrajectoryStep,
} from './trajectory-types.js';

export interface RecorderInit {
  task: string;
  taskDetails?: Record<string, unknown>;
  agent: { type: string; settings: Record<string, unknown> };
  llm: Record<string, unknown> | null;
  modelName: string | null;
  config: Record<string, unknown> | null;
}

/** Builds one episode's trajectory and result as the agent goes. */
export class EpisodeRecorder {
  readonly trajectory: Trajectory;
  private readonly started = Date.now();
  private readonly usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
  private cost: number | null = null;
  private readonly init: RecorderInit;

  constructor(init: RecorderInit) {
    this.init = init;
    this.trajectory = {
      formatVersion: TRAJECTORY_FORMAT_VERSION,
      producer: { name: '@debug-gym/agents', version: VERSION },
      createdAt: new Date(this.started).toISOString(),
      task: { ...init.taskDetails, name: init.task },
      agent: init.agent,
      llm: init.llm,
      config: init.config,
      tools: [],
      reset: null,
      steps: [],
      result: null,
    };
  }

  /** Record the reset; `tools` are the schemas the model is offered (hidden ones left out). */
  reset(info: EnvInfo, startedAt: number, tools: ToolSchema[] = info.tools): void {
    this.trajectory.tools = tools;
    this.trajectory.reset = {
      observation: info.stepObservation.observation,
      allObservations: info.allObservations,
      score: info.score,
      maxScore: info.maxScore,
      resolved: info.resolved,
      timing: { startedAt: new Date(startedAt).toISOString(), envMs: Date.now() - startedAt },
      ...(info.launches?.length ? { launches: info.launches } : {}),
    };
  }

  step(step: TrajectoryStep): void {
    this.trajectory.steps.push(step);
    this.usage.promptTokens += step.usage.promptTokens;
    this.usage.completionTokens += step.usage.completionTokens;
    if (step.usage.estimated) this.usage.estimated = true;
    if (step.costUsd !== null) this.cost = Math.round(((this.cost ?? 0) + step.costUsd) * 1e8) / 1e8;
  }

  finish(info: EnvInfo | null, stopReason: StopReason, error?: unknown): EpisodeResult {
    const resolved = info?.resolved ?? false;
    const status: EpisodeStatus =
      error !== undefined ? 'error' : stopReason === 'aborted' ? 'aborted' : resolved ? 'resolved' : info?.evalTimedOut ? 'timed_out' : 'unresolved';
    const result: EpisodeResult = {
      task: this.init.task,
      agent: this.init.agent.type,
      model: this.init.modelName,
      status,
      success: resolved,
      stopReason,
      steps: this.trajectory.steps.length,
      rewrites: info?.rewriteCount ?? 0,
      score: info?.score ?? 0,
      maxScore: info?.maxScore ?? null,
      usage: { ...this.usage },
      costUsd: this.cost,
      wallTimeMs: Date.now() - this.started,
      startedAt: new Date(this.started).toISOString(),
      finishedAt: new Date().toISOString(),
      ...(error === undefined ? {} : { error: describe(error) }),
    };
    this.trajectory.result = result;
    return result;
  }
}

function describe(error: unknown): { name: string; code?: string; message: string } {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message };
  }
  return { name: 'Error', message: String(error) };
}
