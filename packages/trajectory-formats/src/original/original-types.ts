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
  prompt: OpenAIMessage[];
  response?: string;
  reasoning_response?: string;
  tool?: OriginalToolCall;
  token_usage?: { prompt: number; response: number };
  thinking_blocks?: unknown[];
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
  system_message: string | null;
  problem_message: string | null;
}

/** `log[k]`, k ≥ 1: one agent step. */
export interface OriginalStepEntry {
  step_id: number;
  content: string | null;
  reasoning: string | null;
  action: OriginalToolCall;
  obs: string;
  prompt_response_pairs: OriginalPromptResponsePair[];
}

/** The original debug-gym's `<output>/<uuid>/<task>/trajectory.json` (HEAD; the 1.0 `debug_gym.jsonl` is a subset). */
export interface OriginalTrajectory {
  problem: string;
  config: Record<string, unknown>;
  tools: ToolSchema[];
  uuid: string;
  success: boolean;
  log: [OriginalResetEntry, ...OriginalStepEntry[]] | OriginalStepEntry[];
  agent_type: string;
  logger: string;
}

/** The name the original gives an answer without a tool call. */
export const EMPTY_TOOL_RESPONSE = 'empty_tool_response';
