import { readFile } from 'node:fs/promises';
import { type ToolCall } from '@debug-gym/spec';
import { ReplayExhaustedError, TrajectoryFormatError } from '../errors/index.js';
import { parseTrajectory } from '../trajectory/read-trajectory.js';
import type { Trajectory } from '../trajectory/trajectory-types.js';
import { newCallId } from './openai-wire.js';
import type { GenerateRequest, GenerateResult, LanguageModel, ModelToolCall } from './types.js';

/** One answer to replay. */
export interface ReplayAnswer {
  toolCall: ModelToolCall | null;
  content: string | null;
  reasoning: string | null;
}

/** A scripted session: `{ steps: ToolCall[] }` (like the CLI's `demo/session.json`) or a bare list of calls. */
export type ReplayScript = readonly ToolCall[] | { steps: readonly ToolCall[]; [key: string]: unknown };

export type ReplaySource = Trajectory | ReplayScript;

export interface ReplayModelOptions {
  /** Name shown in results. Default `replay`. */
  name?: string;
  /** Continue with this model once the recorded calls run out (else the episode ends: `replay_exhausted`). */
  then?: LanguageModel;
}

/**
 * A model that answers with recorded tool calls, in order: from a trajectory (each step's answer,
 * malformed ones included, so a re-run takes the same steps) or from a script of calls. Costs nothing.
 */
export function createReplayModel(source: ReplaySource, options: ReplayModelOptions = {}): LanguageModel {
  const answers = replayAnswers(source);
  let next = 0;
  return {
    specificationVersion: 'language-model-v1',
    name: options.name ?? 'replay',
    modelId: 'replay',
    async generate(request: GenerateRequest): Promise<GenerateResult> {
      const answer = answers[next];
      if (!answer) {
        if (options.then) return options.then.generate(request);
        throw new ReplayExhaustedError(next);
      }
      next += 1;
      return { ...answer, usage: { promptTokens: 0, completionTokens: 0 }, costUsd: 0 };
    },
    describe: () => ({ provider: 'replay', calls: answers.length, ...(options.then ? { then: options.then.describe() } : {}) }),
    close: async () => {
      await options.then?.close?.();
    },
  };
}

/** The answers a source replays. */
export function replayAnswers(source: ReplaySource): ReplayAnswer[] {
  if (!Array.isArray(source) && 'formatVersion' in source) {
    return (source as Trajectory).steps.map((step) => ({
      toolCall: step.response?.toolCall ?? (step.toolCall ? toModelCall(step.toolCall) : null),
      content: step.response?.content ?? null,
      reasoning: step.response?.reasoning ?? null,
    }));
  }
  const steps = Array.isArray(source) ? source : (source as { steps: readonly ToolCall[] }).steps;
  return steps.map((call) => ({ toolCall: toModelCall(call), content: null, reasoning: null }));
}

function toModelCall(call: ToolCall): ModelToolCall {
  const args = call.arguments ?? {};
  return { id: call.id ?? newCallId(), name: call.name, arguments: args };
}

/**
 * Load what `debug-gym replay FILE` replays: a trajectory (validated; typed errors for malformed or newer
 * files) or a script `{ "steps": [{ "name", "arguments" }] }` / `[...]`.
 */
export async function loadReplaySource(path: string): Promise<ReplaySource> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    throw new TrajectoryFormatError(path, '', `cannot be read as JSON (${(cause as Error).message})`, { cause });
  }
  if (value && typeof value === 'object' && !Array.isArray(value) && 'formatVersion' in value) return parseTrajectory(value, path);
  const steps = Array.isArray(value) ? value : (value as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps)) {
    throw new TrajectoryFormatError(path, '', 'is neither a trajectory (formatVersion) nor a script ({"steps": [tool calls]})');
  }
  steps.forEach((step, index) => {
    if (!step || typeof step !== 'object' || typeof (step as ToolCall).name !== 'string') {
      throw new TrajectoryFormatError(path, `steps[${index}]`, 'must be a tool call {"name": ..., "arguments": {...}}');
    }
  });
  return value as ReplayScript;
}
