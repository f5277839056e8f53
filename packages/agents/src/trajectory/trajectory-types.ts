import type { Observation, ProcessLaunch, ToolCall, ToolSchema } from '@debug-gym/spec';
import type { ChatMessage, ModelToolCall, RolloutTokens, ThinkingBlock, TokenUsage } from '../llm/types.js';

/** The format tag of trajectories this package writes. A new major shape gets `/v2` beside it. */
export const TRAJECTORY_FORMAT_VERSION = 'debug-gym.trajectory/v1';

/**
 * `timed_out`: the last test run hit its time limit, so the episode says nothing about the fix (not
 * "tests failed"). A benchmark run re-runs such an evaluation before scoring it (`timeout_retries`).
 */
export type EpisodeStatus = 'resolved' | 'unresolved' | 'timed_out' | 'error' | 'aborted';

export type StopReason =
  | 'already_resolved'
  | 'resolved'
  | 'submitted'
  | 'max_steps'
  | 'fatal_error'
  | 'replay_exhausted'
  | 'llm_error'
  | 'aborted';

/** What one episode achieved (also one line of the JSONL summary). */
export interface EpisodeResult {
  task: string;
  agent: string;
  model: string | null;
  status: EpisodeStatus;
  /** The task is resolved (all tests pass). */
  success: boolean;
  stopReason: StopReason;
  /** Agent steps (model answers), malformed ones included. */
  steps: number;
  /** Successful rewrites. */
  rewrites: number;
  score: number;
  maxScore: number | null;
  usage: TokenUsage;
  /** Total price, when the model's prices are configured. */
  costUsd: number | null;
  wallTimeMs: number;
  startedAt: string;
  finishedAt: string;
  /** Why the episode ended in `error`. */
  error?: { name: string; code?: string; message: string };
  /** Evaluations that timed out and were run again before scoring (`timeout_retries`). */
  evalRetries?: number;
}

/** The model's answer as the agent received it. */
export interface TrajectoryResponse {
  content: string | null;
  reasoning: string | null;
  toolCall: ModelToolCall | null;
  notes?: string[];
  /** The endpoint's own response body. */
  raw?: unknown;
  /** The provider's reasoning blocks with their signatures (Anthropic extended thinking), as sent back to it. */
  thinking?: ThinkingBlock[];
}

export interface TrajectoryStep {
  /** 1-based. */
  step: number;
  /** The messages sent to the model (after history trimming). */
  prompt: ChatMessage[];
  response: TrajectoryResponse;
  /** The call executed in the env; null when the answer had none (the agent reported that back). */
  toolCall: ToolCall | null;
  /** What the model saw next. `raw` is the text before normalization, when it differed. */
  observation: { source: string; text: string; raw?: string };
  usage: TokenUsage;
  costUsd: number | null;
  timing: { startedAt: string; modelMs: number; envMs: number };
  /** Env state after the step. */
  state: { score: number; maxScore: number | null; resolved: boolean; terminated: boolean; rewriteCount: number; breakpoints: string };
  /** Python processes the step started (test runs, pdb sessions): forked by the fork server or cold, and why. */
  launches?: ProcessLaunch[];
  /**
   * The exact tokens of the model call, when the endpoint returned them (vLLM `return_token_ids`, `logprobs`):
   * the prompt's and the completion's token ids and the completion's logprobs, for policy-gradient training.
   */
  tokens?: RolloutTokens;
}

export interface TrajectoryReset {
  /** The instructions (reset's step observation). */
  observation: string;
  allObservations: Observation[];
  score: number;
  maxScore: number | null;
  resolved: boolean;
  timing: { startedAt: string; envMs: number };
  /** Python processes the reset started (the first test run, pdb): forked or cold. */
  launches?: ProcessLaunch[];
}

/**
 * One episode, as written to `<out>/<task>/trajectory.json`. Readers must ignore unknown fields;
 * additions that old readers can skip (token ids, an ATIF export) go in new optional fields or `extensions`.
 */
export interface Trajectory {
  formatVersion: typeof TRAJECTORY_FORMAT_VERSION;
  producer: { name: string; version: string };
  createdAt: string;
  task: { name: string; [key: string]: unknown };
  agent: { type: string; settings: Record<string, unknown> };
  /** The model's settings (`describe()`), secrets removed. */
  llm: Record<string, unknown> | null;
  /** The run configuration, secrets removed. */
  config: Record<string, unknown> | null;
  /** The tools offered at reset, as function-calling schemas. */
  tools: ToolSchema[];
  reset: TrajectoryReset | null;
  steps: TrajectoryStep[];
  result: EpisodeResult | null;
  extensions?: Record<string, unknown>;
}
