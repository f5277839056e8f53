import { type ToolCall, type ToolSchema } from '@debug-gym/spec';

/** A tool call the model made, with the id the following `tool` message answers. */
export interface ModelToolCall {
  id: string;
  name: string;
  /** An object, or the model's raw text when it was not valid JSON (the env then reports the problem to the model). */
  arguments: Record<string, unknown> | string;
}

/** One message of a prompt, independent of any vendor API. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      reasoning?: string | null;
      toolCalls?: ModelToolCall[];
      /** The provider's own reasoning blocks (Anthropic extended thinking), sent back as they came (signatures included). */
      thinking?: ThinkingBlock[];
    }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

/**
 * A reasoning block as Anthropic returns it: its signature (or the encrypted `data` of a redacted block)
 * must go back unchanged in the next request of a tool-use conversation.
 */
export type ThinkingBlock = { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

/**
 * The exact tokens of one model call, when the endpoint returns them (vLLM with `return_token_ids`,
 * `logprobs`): what a trainer needs to compute a policy loss on the tokens the model produced.
 */
export interface RolloutTokens {
  /** The prompt as the server tokenized it (chat template applied), history included. */
  promptTokenIds?: number[];
  /** The tokens the model sampled, in order. */
  completionTokenIds?: number[];
  /** Log probability of each sampled token (same length and order as `completionTokenIds` when both are present). */
  logprobs?: number[];
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** True when the endpoint did not report usage and it was counted locally. */
  estimated?: boolean;
}

export interface GenerateRequest {
  messages: ChatMessage[];
  /** The tools the model may call (function-calling schemas, as `info.tools`). */
  tools: ToolSchema[];
  signal?: AbortSignal;
  /**
   * One id per conversation (the task): sent as the `X-Session-ID` header so that a router in front of
   * several servers (vllm-router's consistent hashing) keeps the conversation on one server, and used to
   * keep it on one of several configured endpoints.
   */
  sessionId?: string;
}

export interface GenerateResult {
  /** The first tool call of the answer, or null when the answer had none. */
  toolCall: ModelToolCall | null;
  /** Visible text of the answer. */
  content: string | null;
  /** Reasoning text, when the endpoint returns it separately (`reasoning_content`, `<think>`). */
  reasoning: string | null;
  usage: TokenUsage;
  /** Price of this call, when the model's price table is configured. */
  costUsd?: number;
  /** Why the answer has no usable tool call (shown to the model), e.g. several calls or unparsable text. */
  notes?: string[];
  /** The endpoint's response as received (kept in the trajectory). */
  raw?: unknown;
  /** Reasoning blocks to send back with this answer in later requests (Anthropic extended thinking). */
  thinking?: ThinkingBlock[];
  /** Token ids and logprobs of this call, when the endpoint returned them. */
  tokens?: RolloutTokens;
}

/**
 * The one interface every LLM backend implements; agents never import a vendor SDK. Versioned by a
 * literal tag so that an incompatible change becomes `LanguageModelV2` beside this one.
 */
export interface LanguageModel {
  readonly specificationVersion: 'language-model-v1';
  /** The alias the model was configured under (llm.yaml key), or the backend name (`human`, `replay`). */
  readonly name: string;
  /** The model id sent to the endpoint. */
  readonly modelId: string;
  /** Context window in tokens, when known; agents trim history to fit it. */
  readonly contextLimit?: number;
  /** Tokens kept free for the answer when trimming (e.g. `max_tokens`). */
  readonly maxOutputTokens?: number;
  /** Tokenizer name for local token counts (a tiktoken encoding or OpenAI model name; else an estimate). */
  readonly tokenizer?: string;
  /** Answer one prompt. Throws ContextLengthExceededError when the prompt is too long, LlmRequestError when the endpoint fails for good. */
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /** The model's settings without secrets, for trajectories and logs. */
  describe(): Record<string, unknown>;
  /** Release resources (the human prompt's terminal). */
  close?(): Promise<void>;
}

/** Convert a model tool call to the env's `ToolCall`. */
export function toEnvToolCall(call: ModelToolCall): ToolCall {
  return { id: call.id, name: call.name, arguments: call.arguments };
}
