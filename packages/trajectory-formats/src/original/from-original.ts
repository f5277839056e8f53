import { TRAJECTORY_FORMAT_VERSION, type ChatMessage, type ModelToolCall, type Trajectory, type TrajectoryStep } from '@debug-gym/agents';
import type { ToolSchema } from '@debug-gym/spec';
import { ForeignTrajectoryError } from '../format-errors.js';
import { fromOpenAIMessages, type OpenAIMessage } from '../openai-messages.js';
import { assertSchema } from '../schema-check.js';
import { VERSION } from '../version.js';
import { ORIGINAL_TRAJECTORY_SCHEMA } from './original-schema.js';
import { EMPTY_TOOL_RESPONSE, ORIGINAL_AGENT_CLASSES, type OriginalAnthropicTool, type OriginalMessage, type OriginalStepEntry, type OriginalToolCall, type OriginalTrajectory } from './original-types.js';

/** The state the original does not log per step: scores are unknown (0 of unknown), nothing terminated. */
const UNKNOWN_STATE: TrajectoryStep['state'] = { score: 0, maxScore: null, resolved: false, terminated: false, rewriteCount: 0, breakpoints: '' };

/**
 * Read an original debug-gym `trajectory.json` (checked against its schema) as a debug-gym
 * trajectory (the type `createReplayAgent` and the other exports take). Per-step scores,
 * timing and cost are not in the original: they come back as zeros, and `result` is null (the
 * original's `success`, `uuid`, `logger`, `system_message` and `problem_message` are kept under
 * `extensions.original`). A step whose action is `empty_tool_response` (the original's record of an
 * answer without a tool call) comes back as a step without a call.
 */
export function fromOriginal(value: unknown, file = 'trajectory.json'): Trajectory {
  assertSchema(ORIGINAL_TRAJECTORY_SCHEMA, value, file, 'debug-gym (original)');
  const original = value as OriginalTrajectory;
  original.log.forEach((entry, index) => {
    if (entry.step_id !== index) throw new ForeignTrajectoryError(file, 'debug-gym (original)', `log[${index}].step_id`, `must be ${index} (the entries are the steps in order), got ${entry.step_id}`);
  });
  const epoch = new Date(0).toISOString();
  const reset = original.log[0] as { obs: string; system_message: OriginalMessage | string | null; problem_message: OriginalMessage | string | null };
  return {
    formatVersion: TRAJECTORY_FORMAT_VERSION,
    producer: { name: '@debug-gym/trajectory-formats', version: VERSION },
    createdAt: epoch,
    task: { name: original.problem },
    agent: { type: agentName(original.agent_type), settings: {} },
    llm: null,
    config: original.config,
    tools: original.tools.map(toToolSchema),
    reset: { observation: reset.obs, allObservations: [{ source: 'env', observation: reset.obs }], score: 0, maxScore: null, resolved: false, timing: { startedAt: epoch, envMs: 0 } },
    steps: (original.log.slice(1) as OriginalStepEntry[]).map((entry) => toStep(entry, epoch)),
    result: null,
    extensions: { original: { success: original.success, uuid: original.uuid, logger: original.logger, system_message: reset.system_message, problem_message: reset.problem_message } },
  };
}

function toStep(entry: OriginalStepEntry, epoch: string): TrajectoryStep {
  const pair = entry.prompt_response_pairs?.[0];
  const executed = modelCall(entry.action);
  const answered = pair?.tool === undefined ? executed : modelCall(pair.tool);
  return {
    step: entry.step_id,
    prompt: fromPrompt(pair?.prompt ?? []),
    response: { content: entry.content, reasoning: entry.reasoning, toolCall: answered },
    toolCall: executed ? { id: executed.id, name: executed.name, arguments: executed.arguments } : null,
    observation: { source: executed?.name ?? 'env', text: entry.obs },
    usage: { promptTokens: pair?.token_usage?.prompt ?? 0, completionTokens: pair?.token_usage?.response ?? 0 },
    costUsd: null,
    timing: { startedAt: epoch, modelMs: 0, envMs: 0 },
    state: { ...UNKNOWN_STATE },
  };
}

function agentName(className: string): string {
  return Object.entries(ORIGINAL_AGENT_CLASSES).find(([, value]) => value === className)?.[0] ?? className;
}

/** A logged call, or null for none (`empty_tool_response`, or no action at all). */
function modelCall(call: OriginalToolCall | null | undefined): ModelToolCall | null {
  if (!call || call.name === EMPTY_TOOL_RESPONSE) return null;
  return { id: call.id, name: call.name, arguments: call.arguments };
}

function toToolSchema(tool: ToolSchema | OriginalAnthropicTool): ToolSchema {
  if ('function' in tool) return tool;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.input_schema as unknown as ToolSchema['function']['parameters'] } };
}

/**
 * A logged prompt as our messages. Chat-completions messages map one to one; an Anthropic-flavoured
 * prompt (content blocks: `text`, `thinking`, `tool_use`, `tool_result`) is read block by block.
 * Messages are kept as they were sent: the original's record of a no-call answer inside a prompt (an
 * assistant `tool_calls` entry named `empty_tool_response` and its `tool` reply) stays as it is.
 */
function fromPrompt(messages: readonly (OpenAIMessage | OriginalMessage)[]): ChatMessage[] {
  if (messages.every((message) => !Array.isArray(message.content))) return fromOpenAIMessages(messages as OpenAIMessage[]);
  return messages.flatMap((message): ChatMessage[] => {
    if (!Array.isArray(message.content)) return fromOpenAIMessages([message as OpenAIMessage]);
    const blocks = message.content as Record<string, unknown>[];
    const text = (type: string, key: string) => blocks.filter((block) => block.type === type).map((block) => String(block[key] ?? '')).join('\n');
    if (message.role === 'assistant') {
      const calls = blocks.filter((block) => block.type === 'tool_use').map((block): ModelToolCall => ({ id: String(block.id ?? ''), name: String(block.name ?? ''), arguments: (block.input ?? {}) as Record<string, unknown> }));
      const reasoning = text('thinking', 'thinking');
      return [{ role: 'assistant', content: text('text', 'text') || null, ...(reasoning ? { reasoning } : {}), ...(calls.length ? { toolCalls: calls } : {}) }];
    }
    const results = blocks.filter((block) => block.type === 'tool_result');
    const rest = text('text', 'text');
    return [
      ...results.map((block): ChatMessage => ({ role: 'tool', toolCallId: String(block.tool_use_id ?? ''), name: '', content: resultText(block.content) })),
      ...(rest || results.length === 0 ? [{ role: message.role === 'system' ? 'system' : 'user', content: rest } as ChatMessage] : []),
    ];
  });
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((block) => String((block as { text?: unknown }).text ?? '')).join('\n');
  return '';
}
