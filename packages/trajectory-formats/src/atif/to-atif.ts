import type { ChatMessage, ThinkingBlock, Trajectory, TrajectoryStep } from '@debug-gym/agents';
import type { ExportContext } from '../export-context.js';
import { ATIF_SCHEMA_VERSION, type AtifStep, type AtifTrajectory } from './atif-types.js';

/** The key under `extra` where debug-gym keeps what ATIF has no field for. */
export const DEBUG_GYM_EXTRA = 'debug_gym';

/** Per agent step, under `extra.debug_gym`: what a debug-gym step holds beyond ATIF's fields. */
export interface AtifStepExtra {
  /** The step's number in the debug-gym trajectory (ATIF numbers the system and task messages too). */
  step: number;
  /** The messages sent to the model for this step. */
  prompt: ChatMessage[];
  observation_source: string;
  observation_raw?: string;
  /** The answer's text was null (ATIF's `message` is always a string). */
  content_null?: true;
  /** The call's arguments as the model wrote them, when they were not a JSON object (ATIF's are `{}` then). */
  raw_arguments?: string;
  /** The model's call was not run (a tool hidden from it); the env answered with a note. */
  tool_call_not_run?: true;
  notes?: string[];
  response_raw?: unknown;
  /** The provider's signed reasoning blocks (Anthropic extended thinking); their text is also `reasoning_content`. */
  thinking?: ThinkingBlock[];
  usage_estimated?: true;
  timing: { model_ms: number; env_ms: number };
  state: TrajectoryStep['state'];
  /** The Python processes the step started and how (fork server or cold). */
  launches?: TrajectoryStep['launches'];
}

/**
 * A trajectory in ATIF v1.4: a `system` step (the system prompt) and a `user` step (the task message)
 * from the first prompt, then one `agent` step per debug-gym step with its message, reasoning, tool
 * call, observation and metrics. Everything else (prompts, per-step scores, timing, the run config,
 * the result) rides under `extra.debug_gym`, so `fromAtif` gives the same trajectory back.
 */
export function toAtif(trajectory: Trajectory, context: ExportContext): AtifTrajectory {
  const model = trajectory.result?.model ?? (typeof trajectory.llm?.model === 'string' ? trajectory.llm.model : undefined);
  const steps: AtifStep[] = [...headSteps(trajectory), ...trajectory.steps.map((step) => agentStep(step))].map((step, index) => ({ ...step, step_id: index + 1 }));
  const totals = trajectory.steps.reduce((sum, step) => ({ prompt: sum.prompt + step.usage.promptTokens, completion: sum.completion + step.usage.completionTokens }), { prompt: 0, completion: 0 });
  const cost = trajectory.steps.some((step) => step.costUsd !== null) ? trajectory.steps.reduce((sum, step) => sum + (step.costUsd ?? 0), 0) : null;
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    session_id: `${context.runId}:${trajectory.task.name}`,
    agent: {
      name: 'debug-gym',
      version: trajectory.producer.version,
      ...(model ? { model_name: model } : {}),
      extra: { agent_type: trajectory.agent.type, settings: trajectory.agent.settings, tools: trajectory.tools },
    },
    steps,
    notes: `Exported by debug-gym from ${context.source}. Steps 1-${steps.length - trajectory.steps.length} are the system prompt and the task message; each agent step is one model answer and the observation of its tool call. extra.${DEBUG_GYM_EXTRA} holds what ATIF has no field for (prompts, per-step scores, timing, the run config, the result).`,
    final_metrics: {
      total_prompt_tokens: totals.prompt,
      total_completion_tokens: totals.completion,
      ...(cost === null ? {} : { total_cost_usd: Math.round(cost * 1e8) / 1e8 }),
      total_steps: steps.length,
    },
    extra: {
      [DEBUG_GYM_EXTRA]: {
        formatVersion: trajectory.formatVersion,
        producer: trajectory.producer,
        createdAt: trajectory.createdAt,
        task: trajectory.task,
        llm: trajectory.llm,
        config: trajectory.config,
        reset: trajectory.reset,
        result: trajectory.result,
        ...(trajectory.extensions ? { extensions: trajectory.extensions } : {}),
      },
    },
  };
}

/** The system prompt and the task message the first prompt opened with (the reset's text when no step ran). */
function headSteps(trajectory: Trajectory): Omit<AtifStep, 'step_id'>[] {
  const prompt = trajectory.steps[0]?.prompt ?? [];
  const firstAnswer = prompt.findIndex((message) => message.role === 'assistant');
  const head = (firstAnswer === -1 ? prompt : prompt.slice(0, firstAnswer)).filter((message) => message.role === 'system' || message.role === 'user');
  const timestamp = trajectory.reset?.timing.startedAt;
  const stamp = timestamp ? { timestamp } : {};
  if (head.length === 0) return [{ ...stamp, source: 'user', message: trajectory.reset?.observation ?? '' }];
  return head.map((message) => ({ ...stamp, source: message.role === 'system' ? 'system' : 'user', message: message.content as string }));
}

function agentStep(step: TrajectoryStep): Omit<AtifStep, 'step_id'> {
  const call = step.response.toolCall;
  const rawArguments = call && typeof call.arguments === 'string' ? call.arguments : undefined;
  const extra: AtifStepExtra = {
    step: step.step,
    prompt: step.prompt,
    observation_source: step.observation.source,
    ...(step.observation.raw !== undefined ? { observation_raw: step.observation.raw } : {}),
    ...(step.response.content === null ? { content_null: true as const } : {}),
    ...(rawArguments !== undefined ? { raw_arguments: rawArguments } : {}),
    ...(call && !step.toolCall ? { tool_call_not_run: true as const } : {}),
    ...(step.response.notes ? { notes: step.response.notes } : {}),
    ...(step.response.raw !== undefined ? { response_raw: step.response.raw } : {}),
    ...(step.response.thinking ? { thinking: step.response.thinking } : {}),
    ...(step.usage.estimated ? { usage_estimated: true as const } : {}),
    timing: { model_ms: step.timing.modelMs, env_ms: step.timing.envMs },
    state: step.state,
    ...(step.launches ? { launches: step.launches } : {}),
  };
  return {
    timestamp: step.timing.startedAt,
    source: 'agent',
    message: step.response.content ?? '',
    ...(step.response.reasoning !== null ? { reasoning_content: step.response.reasoning } : {}),
    ...(call ? { tool_calls: [{ tool_call_id: call.id, function_name: call.name, arguments: rawArguments === undefined ? (call.arguments as Record<string, unknown>) : {} }] } : {}),
    observation: { results: [{ ...(call ? { source_call_id: call.id } : {}), content: step.observation.text }] },
    metrics: {
      prompt_tokens: step.usage.promptTokens,
      completion_tokens: step.usage.completionTokens,
      ...(step.costUsd !== null ? { cost_usd: step.costUsd } : {}),
      // ATIF v1.3/v1.4's RL fields: the exact tokens, so a trainer needs no retokenization.
      ...(step.tokens?.promptTokenIds ? { prompt_token_ids: step.tokens.promptTokenIds } : {}),
      ...(step.tokens?.completionTokenIds ? { completion_token_ids: step.tokens.completionTokenIds } : {}),
      ...(step.tokens?.logprobs ? { logprobs: step.tokens.logprobs } : {}),
    },
    extra: { [DEBUG_GYM_EXTRA]: extra },
  };
}
