import { type EnvInfo, type HiddenToolsChange, type ToolCall } from '@debug-gym/spec';
import type { LanguageModel } from '../llm/types.js';
import type { EpisodeResult, Trajectory, TrajectoryStep } from '../trajectory/trajectory-types.js';
import type { AgentName } from './agent-presets.js';

/** What an agent needs of an env: RepoEnv, or anything with the same `reset`/`step` (a remote env client). */
export interface AgentEnv {
  reset(): Promise<EnvInfo>;
  step(toolCall: ToolCall): Promise<EnvInfo>;
  /**
   * Hide tools the agent does not offer (RepoEnv has it): they then neither run nor speak, e.g. pdb
   * starts no session for `rewrite_agent`. Without it the tools are only left out of the prompt.
   */
  setHiddenTools?(names: readonly string[]): Promise<HiddenToolsChange>;
}

export interface AgentOptions {
  llm: LanguageModel;
  /** Steps before the episode stops. Default 100. */
  maxSteps?: number;
  /** debug_5_agent: successful rewrites before pdb is offered. Default 5. */
  nRewritesBeforePdb?: number;
  /** Replaces the agent's default system prompt. */
  systemPrompt?: string;
  /** Only these tools are shown to the model (default: all the env has, minus the agent's hidden ones). */
  tools?: readonly string[];
  /** Keep at most this many latest steps in the prompt (besides the token budget). */
  maxHistorySteps?: number;
  /** Characters of the initial test output put in the task message. Default 8 000. */
  maxEvalChars?: number;
  /** Keep the endpoint's raw response in the trajectory. Default true. */
  recordRaw?: boolean;
  /** froggy_agent, simple_agent: the instance (task) prompt template (`{{ info.instructions }}` placeholders). */
  instancePrompt?: string;
  /** froggy_agent, simple_agent: the original's `max_history_steps_cutoff` (it counts history messages). */
  maxHistoryMessages?: number;
  /** froggy_agent, simple_agent: the original's `max_history_token_cutoff`. */
  maxHistoryTokens?: number;
  /** froggy_agent: the current breakpoints in the system prompt (the original's `show_current_breakpoints`). */
  showCurrentBreakpoints?: boolean;
}

export interface AgentRunOptions {
  /** Task name (trajectory folder, summary). Default `task`. */
  task?: string;
  /** Extra task facts for the trajectory (benchmark, path, entrypoint). */
  taskDetails?: Record<string, unknown>;
  /** The run configuration to store (secret-named keys are redacted when written). */
  config?: Record<string, unknown>;
  /** Called once the env is reset, before the first step. */
  onReset?: (info: EnvInfo) => void | Promise<void>;
  /** Called after every step (progress display, logging). */
  onStep?: (step: TrajectoryStep, info: EnvInfo) => void | Promise<void>;
  /** Stops the episode (status `aborted`) and cancels a pending LLM request. */
  signal?: AbortSignal;
  /** Use this state instead of calling `env.reset()` (the env was reset already). */
  info?: EnvInfo;
  /** When set, write `<outputDir>/<task>/trajectory.json` and append to `<outputDir>/summary.jsonl`. */
  outputDir?: string;
  /** Secret strings (API keys) to mask in what is written. */
  knownSecrets?: readonly string[];
}

export interface EpisodeOutcome {
  result: EpisodeResult;
  trajectory: Trajectory;
  /** Where the trajectory was written (with `outputDir`). */
  trajectoryPath?: string;
}

export interface DebugAgent {
  readonly name: AgentName;
  /** The tools the env should load for this agent. */
  readonly tools: readonly string[];
  readonly settings: Record<string, unknown>;
  readonly llm: LanguageModel;
  /** Run one episode: reset, then model answer → env step until resolved, submitted or out of steps. Never throws for LLM or env failures: they end the episode with status `error`. */
  run(env: AgentEnv, options?: AgentRunOptions): Promise<EpisodeOutcome>;
}
