import type { ChatMessage, ModelToolCall, Trajectory, TrajectoryStep } from '@debug-gym/agents';
import type { ToolCall } from '@debug-gym/spec';
import type { ExportContext } from '../export-context.js';
import { toOpenAIMessages, type OpenAIMessage } from '../openai-messages.js';
import { pythonJsonDumps } from './python-json.js';
import { EMPTY_TOOL_CALL, ORIGINAL_AGENT_CLASSES, type OriginalMessage, type OriginalPromptResponsePair, type OriginalResetEntry, type OriginalStepEntry, type OriginalToolCall, type OriginalTrajectory } from './original-types.js';

/**
 * A trajectory in the original debug-gym's `trajectory.json` layout: `log[0]` is the reset (with the
 * system and task messages of the first prompt as `{role, content}` messages, as the original's
 * `build_system_prompt` / `build_instance_prompt` return them), `log[k]` step k with the executed call
 * as `action` and the LLM call as its one prompt/response pair. An answer without a call is logged as
 * the original's `LLM.__call__` logs it: `{"id": "empty_tool_response", "name": "empty_tool_response",
 * "arguments": {}}` as the `action` and as the pair's `tool`. What the original has no field for (scores per step, timing, cost, raw
 * observations) is left out.
 */
export function toOriginal(trajectory: Trajectory, context: ExportContext): OriginalTrajectory {
  const head = trajectory.steps[0]?.prompt ?? [];
  const kept = (trajectory.extensions?.original ?? {}) as { system_message?: OriginalMessage | string | null; problem_message?: OriginalMessage | string | null };
  const reset: OriginalResetEntry = {
    step_id: 0,
    reasoning: null,
    content: null,
    action: null,
    obs: trajectory.reset?.observation ?? '',
    prompt_response_pairs: null,
    // An imported original file keeps its own (they may differ from the first prompt, e.g. after trimming).
    system_message: kept.system_message !== undefined ? kept.system_message : headMessage(head, 'system'),
    problem_message: kept.problem_message !== undefined ? kept.problem_message : headMessage(head, 'user'),
  };
  return {
    problem: trajectory.task.name,
    config: trajectory.config ?? {},
    tools: trajectory.tools,
    uuid: context.runId,
    success: trajectory.result?.success ?? (trajectory.extensions?.original as { success?: boolean } | undefined)?.success === true,
    log: [reset, ...trajectory.steps.map(toLogEntry)],
    agent_type: ORIGINAL_AGENT_CLASSES[trajectory.agent.type] ?? trajectory.agent.type,
    logger: context.source,
  };
}

function toLogEntry(step: TrajectoryStep): OriginalStepEntry {
  const answered = step.response.toolCall;
  const pair: OriginalPromptResponsePair = {
    prompt: toOpenAIMessages(step.prompt).map(pythonArguments),
    ...(step.response.content !== null ? { response: step.response.content } : {}),
    ...(step.response.reasoning !== null ? { reasoning_response: step.response.reasoning } : {}),
    tool: answered ? originalCall(answered) : emptyToolCall(),
    token_usage: { prompt: step.usage.promptTokens, response: step.usage.completionTokens },
  };
  return {
    step_id: step.step,
    content: step.response.content,
    reasoning: step.response.reasoning,
    // A call the agent did not run (a hidden tool) is logged as the original logs any call: the one the model made.
    action: step.toolCall ? originalCall(step.toolCall) : answered ? originalCall(answered) : emptyToolCall(),
    obs: step.observation.text,
    prompt_response_pairs: [pair],
  };
}

function originalCall(call: ToolCall | ModelToolCall): OriginalToolCall {
  return { id: call.id ?? '', name: call.name, arguments: call.arguments ?? {} };
}

/** Tool-call arguments in a logged prompt as the original's `json.dumps` writes them (text that is not a JSON object stays as it is). */
function pythonArguments(message: OpenAIMessage): OpenAIMessage {
  if (message.role !== 'assistant' || !message.tool_calls) return message;
  return {
    ...message,
    tool_calls: message.tool_calls.map((call) => {
      const parsed = parseObject(call.function.arguments);
      return parsed ? { ...call, function: { ...call.function, arguments: pythonJsonDumps(parsed) } } : call;
    }),
  };
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function emptyToolCall(): OriginalToolCall {
  return { id: EMPTY_TOOL_CALL.id, name: EMPTY_TOOL_CALL.name, arguments: {} };
}

/** The first prompt's system message, or its first user message (the task), as `{role, content}`. */
function headMessage(messages: readonly ChatMessage[], role: 'system' | 'user'): OriginalMessage | null {
  const found = messages.find((message) => message.role === role);
  return found && typeof found.content === 'string' ? { role, content: found.content } : null;
}
