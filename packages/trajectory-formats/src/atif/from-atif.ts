import { TRAJECTORY_FORMAT_VERSION, type ModelToolCall, type Trajectory, type TrajectoryStep } from '@debug-gym/agents';
import type { ToolSchema } from '@debug-gym/spec';
import { ForeignTrajectoryError } from '../format-errors.js';
import { assertSchema } from '../schema-check.js';
import { atifRuleProblems } from './atif-rules.js';
import { ATIF_SCHEMA_LENIENT } from './atif-schema.js';
import type { AtifStep, AtifTrajectory } from './atif-types.js';
import { DEBUG_GYM_EXTRA, type AtifStepExtra } from './to-atif.js';

const UNKNOWN_STATE: TrajectoryStep['state'] = { score: 0, maxScore: null, resolved: false, terminated: false, rewriteCount: 0, breakpoints: '' };
const EPOCH = new Date(0).toISOString();

/**
 * Read an ATIF trajectory (v1.x, checked against the schema and the RFC's rules) as a debug-gym
 * trajectory. One exported by debug-gym comes back identical (its `extra.debug_gym` fills what ATIF
 * has no field for). Another agent's: its agent steps become steps (one tool call each is kept, their
 * results joined), with unknown scores and timing, no prompts, and `result` null.
 */
export function fromAtif(value: unknown, file = 'trajectory.json'): Trajectory {
  assertSchema(ATIF_SCHEMA_LENIENT, value, file, 'ATIF');
  const atif = value as AtifTrajectory;
  const problem = atifRuleProblems(atif)[0];
  if (problem) {
    const [path, ...rest] = problem.split(': ');
    throw new ForeignTrajectoryError(file, 'ATIF', path as string, rest.join(': '));
  }
  const saved = objectAt(atif.extra, DEBUG_GYM_EXTRA);
  const agentExtra = atif.agent.extra ?? {};
  const agentSteps = atif.steps.filter((step) => step.source === 'agent');
  const firstUser = atif.steps.find((step) => step.source === 'user');
  return {
    formatVersion: TRAJECTORY_FORMAT_VERSION,
    producer: (saved?.producer as Trajectory['producer']) ?? { name: atif.agent.name, version: atif.agent.version },
    createdAt: (saved?.createdAt as string) ?? atif.steps[0]?.timestamp ?? EPOCH,
    task: (saved?.task as Trajectory['task']) ?? { name: atif.session_id },
    agent: { type: typeof agentExtra.agent_type === 'string' ? agentExtra.agent_type : atif.agent.name, settings: (agentExtra.settings as Record<string, unknown>) ?? {} },
    llm: saved ? (saved.llm as Trajectory['llm']) : atif.agent.model_name ? { model: atif.agent.model_name } : null,
    config: (saved?.config as Trajectory['config']) ?? null,
    tools: (agentExtra.tools as ToolSchema[]) ?? [],
    reset: saved
      ? (saved.reset as Trajectory['reset'])
      : firstUser
        ? { observation: firstUser.message, allObservations: [{ source: 'env', observation: firstUser.message }], score: 0, maxScore: null, resolved: false, timing: { startedAt: firstUser.timestamp ?? EPOCH, envMs: 0 } }
        : null,
    steps: agentSteps.map((step, index) => toStep(step, index + 1)),
    result: (saved?.result as Trajectory['result']) ?? null,
    ...(saved?.extensions ? { extensions: saved.extensions as Record<string, unknown> } : {}),
  };
}

function toStep(step: AtifStep, fallbackNumber: number): TrajectoryStep {
  const extra = objectAt(step.extra, DEBUG_GYM_EXTRA) as Partial<AtifStepExtra> | undefined;
  const call = step.tool_calls?.[0];
  const toolCall: ModelToolCall | null = call ? { id: call.tool_call_id, name: call.function_name, arguments: extra?.raw_arguments ?? call.arguments } : null;
  const text = (step.observation?.results ?? []).map((result) => result.content ?? '').join('\n\n');
  return {
    step: extra?.step ?? fallbackNumber,
    prompt: extra?.prompt ?? [],
    response: {
      content: extra?.content_null ? null : step.message,
      reasoning: step.reasoning_content ?? null,
      toolCall,
      ...(extra?.notes ? { notes: extra.notes } : {}),
      ...(extra && 'response_raw' in extra ? { raw: extra.response_raw } : {}),
      ...(extra?.thinking ? { thinking: extra.thinking } : {}),
    },
    toolCall: toolCall && !extra?.tool_call_not_run ? { ...toolCall } : null,
    observation: { source: extra?.observation_source ?? call?.function_name ?? 'env', text, ...(extra?.observation_raw !== undefined ? { raw: extra.observation_raw } : {}) },
    usage: { promptTokens: step.metrics?.prompt_tokens ?? 0, completionTokens: step.metrics?.completion_tokens ?? 0, ...(extra?.usage_estimated ? { estimated: true } : {}) },
    costUsd: step.metrics?.cost_usd ?? null,
    timing: { startedAt: step.timestamp ?? EPOCH, modelMs: extra?.timing?.model_ms ?? 0, envMs: extra?.timing?.env_ms ?? 0 },
    state: extra?.state ?? { ...UNKNOWN_STATE },
    ...(extra?.launches ? { launches: extra.launches } : {}),
    ...tokensOf(step.metrics),
  };
}

/** ATIF's token ids and logprobs of a step, as a step's `tokens`. */
function tokensOf(metrics: AtifStep['metrics']): Pick<TrajectoryStep, 'tokens'> {
  const tokens = {
    ...(metrics?.prompt_token_ids ? { promptTokenIds: metrics.prompt_token_ids } : {}),
    ...(metrics?.completion_token_ids ? { completionTokenIds: metrics.completion_token_ids } : {}),
    ...(metrics?.logprobs ? { logprobs: metrics.logprobs } : {}),
  };
  return Object.keys(tokens).length > 0 ? { tokens } : {};
}

function objectAt(container: Record<string, unknown> | undefined, key: string): Record<string, unknown> | undefined {
  const value = container?.[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
