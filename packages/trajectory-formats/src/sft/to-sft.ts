import type { ChatMessage, Trajectory } from '@debug-gym/agents';
import type { ToolSchema } from '@debug-gym/spec';
import type { ExportContext } from '../export-context.js';
import { toOpenAIToolCall, type OpenAIMessage } from '../openai-messages.js';

/**
 * One SFT example: an episode as a chat in the OpenAI fine-tuning layout (`messages` with
 * `tool_calls` and `tool` results, the `tools` offered), plus the fields the original's
 * `analysis/sft_data_viewer` shows (`problem`, `run_id`, `satisfied_criteria`, `truncated`, `#tokens`).
 */
export interface SftRecord {
  messages: OpenAIMessage[];
  tools: ToolSchema[];
  problem: string;
  run_id: string;
  /** The task was resolved (all tests pass; after fresh grading for benchmark runs). */
  success: boolean;
  /** The original's filter criteria this episode meets (`has_successful_outcome` when resolved). */
  satisfied_criteria: string[];
  /** The model saw a shortened history in some step (context window or `max_history_steps`). */
  truncated: boolean;
  /** Tokens of the final exchange as the endpoint counted them (prompt + answer of the last step). */
  '#tokens': number;
  agent_type: string;
  model: string | null;
  /**
   * The exact tokens of each model call, when the endpoint returned them (vLLM `return_token_ids`,
   * `logprobs`): for a policy loss on exactly the tokens the model produced. One entry per step that has
   * them; `message_index` is that step's assistant message in `messages`. Field names as ATIF's metrics.
   */
  rollout?: SftRolloutTurn[];
}

export interface SftRolloutTurn {
  /** The debug-gym step (1-based). */
  step: number;
  /** Index of the step's answer in `messages`. */
  message_index: number;
  /** The prompt as the server tokenized it (chat template applied, history included). */
  prompt_token_ids?: number[];
  /** The sampled tokens of the answer. */
  completion_token_ids?: number[];
  /** Log probability of each sampled token, aligned with `completion_token_ids`. */
  logprobs?: number[];
}

/** Why an episode gives no SFT example; null when it gives one. */
export function sftSkipReason(trajectory: Trajectory, options: { all?: boolean } = {}): string | null {
  if (trajectory.steps.length === 0) return 'no steps (resolved at reset, or failed before the first answer)';
  if (!options.all && trajectory.result?.status !== 'resolved') return `${trajectory.result?.status ?? 'no result'} (only resolved episodes; --all for every one)`;
  return null;
}

/**
 * The episode as one conversation: the system prompt and task message of the first prompt, then per
 * step the model's answer (text and tool call; reasoning is left out) and what it was told back — a
 * `tool` message for a call, a `user` message when the answer had none — as the agent builds its
 * history. The whole history, even where the model saw it trimmed. Ends with the last answer.
 */
export function toSft(trajectory: Trajectory, context: ExportContext): SftRecord {
  const first = trajectory.steps[0]?.prompt ?? [];
  const firstAnswer = first.findIndex((message) => message.role === 'assistant');
  const head = (firstAnswer === -1 ? first : first.slice(0, firstAnswer)).filter((message): message is Extract<ChatMessage, { role: 'system' | 'user' }> => message.role === 'system' || message.role === 'user');
  const messages: OpenAIMessage[] = head.map((message) => ({ role: message.role, content: message.content }));
  const rollout: SftRolloutTurn[] = [];
  trajectory.steps.forEach((step, index) => {
    const call = step.response.toolCall;
    const tokens = step.tokens;
    if (tokens) {
      rollout.push({
        step: step.step,
        message_index: messages.length,
        ...(tokens.promptTokenIds ? { prompt_token_ids: tokens.promptTokenIds } : {}),
        ...(tokens.completionTokenIds ? { completion_token_ids: tokens.completionTokenIds } : {}),
        ...(tokens.logprobs ? { logprobs: tokens.logprobs } : {}),
      });
    }
    messages.push({ role: 'assistant', content: step.response.content ?? (call ? null : ''), ...(call ? { tool_calls: [toOpenAIToolCall(call)] } : {}) });
    if (index === trajectory.steps.length - 1) return;
    messages.push(call ? { role: 'tool', tool_call_id: call.id, name: call.name, content: step.observation.text } : { role: 'user', content: step.observation.text });
  });
  const last = trajectory.steps[trajectory.steps.length - 1];
  const success = trajectory.result?.status === 'resolved';
  return {
    messages,
    tools: trajectory.tools,
    problem: trajectory.task.name,
    run_id: context.runId,
    success,
    satisfied_criteria: success ? ['has_successful_outcome'] : [],
    truncated: trajectory.steps.some((step, index) => step.prompt.length > 0 && step.prompt.filter((message) => message.role === 'assistant').length < index),
    '#tokens': last ? last.usage.promptTokens + last.usage.completionTokens : 0,
    agent_type: trajectory.agent.type,
    model: trajectory.result?.model ?? null,
    ...(rollout.length > 0 ? { rollout } : {}),
  };
}
