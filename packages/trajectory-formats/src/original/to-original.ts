import type { ChatMessage, ModelToolCall, Trajectory, TrajectoryStep } from '@debug-gym/agents';
import type { ToolCall } from '@debug-gym/spec';
import type { ExportContext } from '../export-context.js';
import { toOpenAIMessages } from '../openai-messages.js';
import { EMPTY_TOOL_RESPONSE, type OriginalPromptResponsePair, type OriginalResetEntry, type OriginalStepEntry, type OriginalToolCall, type OriginalTrajectory } from './original-types.js';

/**
 * A trajectory in the original debug-gym's `trajectory.json` layout: `log[0]` is the reset (with the
 * system and task messages of the first prompt), `log[k]` step k with the executed call as `action`
 * (an answer without a call becomes `empty_tool_response`, as in the original) and the LLM call as its
 * one prompt/response pair. What the original has no field for (scores per step, timing, cost, raw
 * observations) is left out.
 */
export function toOriginal(trajectory: Trajectory, context: ExportContext): OriginalTrajectory {
  const head = trajectory.steps[0]?.prompt ?? [];
  const reset: OriginalResetEntry = {
    step_id: 0,
    reasoning: null,
    content: null,
    action: null,
    obs: trajectory.reset?.observation ?? '',
    prompt_response_pairs: null,
    system_message: firstContent(head, 'system'),
    problem_message: firstContent(head, 'user'),
  };
  return {
    problem: trajectory.task.name,
    config: trajectory.config ?? {},
    tools: trajectory.tools,
    uuid: context.runId,
    success: trajectory.result?.success ?? (trajectory.extensions?.original as { success?: boolean } | undefined)?.success === true,
    log: [reset, ...trajectory.steps.map(toLogEntry)],
    agent_type: trajectory.agent.type,
    logger: context.source,
  };
}

function toLogEntry(step: TrajectoryStep): OriginalStepEntry {
  const answered = step.response.toolCall;
  const pair: OriginalPromptResponsePair = {
    prompt: toOpenAIMessages(step.prompt),
    ...(step.response.content !== null ? { response: step.response.content } : {}),
    ...(step.response.reasoning !== null ? { reasoning_response: step.response.reasoning } : {}),
    ...(answered ? { tool: originalCall(answered) } : {}),
    token_usage: { prompt: step.usage.promptTokens, response: step.usage.completionTokens },
  };
  return {
    step_id: step.step,
    content: step.response.content,
    reasoning: step.response.reasoning,
    action: step.toolCall ? originalCall(step.toolCall) : { id: answered?.id ?? `${EMPTY_TOOL_RESPONSE}-${step.step}`, name: answered?.name ?? EMPTY_TOOL_RESPONSE, arguments: answered?.arguments ?? {} },
    obs: step.observation.text,
    prompt_response_pairs: [pair],
  };
}

function originalCall(call: ToolCall | ModelToolCall): OriginalToolCall {
  return { id: call.id ?? '', name: call.name, arguments: call.arguments ?? {} };
}

function firstContent(messages: readonly ChatMessage[], role: 'system' | 'user'): string | null {
  const found = messages.find((message) => message.role === role);
  return found && typeof found.content === 'string' ? found.content : null;
}
