import type { ToolSchema } from '@debug-gym/spec';
import type { OpenAIMessage } from '../openai-messages.js';

/** A tool call as the original logs it (`asdict(ToolCall)`). */
export interface OriginalToolCall {
  id: string;
  name: string;
  /** An object; the text the model wrote when it was not valid JSON (the original ended the task there). */
  arguments: Record<string, unknown> | string;
}

/** One LLM call of a step (`asdict(LLMResponse)` without its null fields). */
export interface OriginalPromptResponsePair {
  prompt: OpenAIMessage[] | OriginalMessage[];
  response?: string;
  reasoning_response?: string;
  tool?: OriginalToolCall;
  token_usage?: { prompt: number; response: number };
  thinking_blocks?: unknown[];
}

/**
 * A message as the original's `build_system_prompt` / `build_instance_prompt` return it: `{role, content}`
 * (content is text; an Anthropic-flavoured prompt may hold content blocks).
 */
export interface OriginalMessage {
  role: string;
  content: string | unknown[] | null;
  [key: string]: unknown;
}

/** `log[0]`: the reset. */
export interface OriginalResetEntry {
  step_id: 0;
  reasoning: null;
  content: null;
  action: null;
  /** The reset's step observation (the instructions). */
  obs: string;
  prompt_response_pairs: null;
  /** `build_system_prompt(info)`: `{"role": "system", "content": ...}` (plain text in exports before 0.x; still read). */
  system_message: OriginalMessage | string | null;
  /** `build_instance_prompt(info)`: `{"role": "user", "content": ...}` (plain text in older exports; still read). */
  problem_message: OriginalMessage | string | null;
}

/** `log[k]`, k ≥ 1: one agent step. */
export interface OriginalStepEntry {
  step_id: number;
  content: string | null;
  reasoning: string | null;
  /** The call the env ran; `empty_tool_response` when the answer had none. Null only when the env was given no call. */
  action: OriginalToolCall | null;
  obs: string;
  /** Absent when the step had no LLM call (`HistoryTracker.json` leaves the key out). */
  prompt_response_pairs?: OriginalPromptResponsePair[];
}

/** The original debug-gym's `<output>/<uuid>/<task>/trajectory.json` (HEAD; the 1.0 `debug_gym.jsonl` is a subset). */
export interface OriginalTrajectory {
  problem: string;
  config: Record<string, unknown>;
  /** `llm.define_tools(env.tools)`: OpenAI function schemas, or Anthropic's `{name, description, input_schema}`. */
  tools: (ToolSchema | OriginalAnthropicTool)[];
  uuid: string;
  success: boolean;
  log: [OriginalResetEntry, ...OriginalStepEntry[]] | OriginalStepEntry[];
  agent_type: string;
  logger: string;
}

/** A tool as the original's Anthropic backend defines it. */
export interface OriginalAnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** The call the original logs for an answer without a tool call (`LLM.__call__`, `OpenAILLM.parse_tool_call_response(None)`). */
export const EMPTY_TOOL_CALL: Readonly<OriginalToolCall> = Object.freeze({ id: 'empty_tool_response', name: 'empty_tool_response', arguments: Object.freeze({}) as Record<string, unknown> });

/** The name the original gives an answer without a tool call. */
export const EMPTY_TOOL_RESPONSE = 'empty_tool_response';

/**
 * The original logs `agent_type` as the agent's class name (`BaseAgent.build_trajectory`:
 * `self.__class__.__name__`); our agents of the same name map to it and back.
 */
export const ORIGINAL_AGENT_CLASSES: Readonly<Record<string, string>> = Object.freeze({ froggy_agent: 'FroggyAgent', simple_agent: 'SimpleAgent', solution: 'AgentSolution' });
