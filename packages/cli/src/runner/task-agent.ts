import {
  AGENT_PRESETS,
  createAgent,
  createReplayModel,
  loadLanguageModel,
  loadReplaySource,
  type AgentEnv,
  type AgentRunOptions,
  type EpisodeOutcome,
  type HumanModelOptions,
  type LanguageModel,
  type ReplaySource,
  type RetryOptions,
} from '@debug-gym/agents';
import { SolutionError, type BenchmarkTask, type BenchmarkV1, type ToolCall } from '@debug-gym/core';
import { ConfigError } from '../config/config-error.js';
import type { RunConfig } from '../config/config-schema.js';

/** What the task runner needs of an agent: one episode per task. */
export interface TaskAgent {
  /** `debug_agent`, `rewrite_agent`, `debug_5_agent`, `froggy_agent`, `simple_agent` or `solution`. */
  readonly type: string;
  /** The model's name (null for the solution agent). */
  readonly model: string | null;
  /** The tools the env loads unless the config lists its own. */
  readonly tools: readonly string[];
  /** Secret strings (API keys) to mask in what is written. */
  readonly secrets: readonly string[];
  /** The human model reads the terminal: one task at a time, no progress bar. */
  readonly interactive: boolean;
  run(env: AgentEnv, task: BenchmarkTask, options: AgentRunOptions): Promise<EpisodeOutcome>;
  close(): Promise<void>;
}

export interface CreateTaskAgentOptions {
  /** The benchmark the tasks come from (the solution agent asks it for the known fixes). */
  benchmark?: BenchmarkV1;
  /** Streams of the human model. */
  human?: HumanModelOptions;
  /** Retry policy of LLM requests (tests). */
  retry?: RetryOptions;
  /** Where a retried LLM request is announced (default stderr): a wrong endpoint must not look like a hang. */
  log?: (text: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The agent a run configuration describes. */
export async function createTaskAgent(config: RunConfig, options: CreateTaskAgentOptions = {}): Promise<TaskAgent> {
  if (config.agent_type === 'solution') return createSolutionAgent(config, options.benchmark);
  let base: LanguageModel | undefined;
  let secrets: string[] = [];
  if (config.llm_name) {
    const log = options.log ?? ((text: string) => void process.stderr.write(`${text}\n`));
    let endpoint = 'its endpoint';
    const onRetry: NonNullable<RetryOptions['onRetry']> = (event) => {
      log(`debug-gym: waiting for the model ${config.llm_name} at ${endpoint}: ${event.reason.split('\n')[0]} (attempt ${event.attempt}); retrying in ${(event.delayMs / 1000).toFixed(1)} s. Check \`endpoint\` in llm.yaml if this goes on (max_retries there caps the attempts).`);
      options.retry?.onRetry?.(event);
    };
    const loaded = await loadLanguageModel(config.llm_name, {
      ...(config.llm_config_file_path ? { llmConfigFilePath: config.llm_config_file_path } : {}),
      ...(config.generate_kwargs ? { generateKwargs: config.generate_kwargs } : {}),
      ...(options.human ? { human: options.human } : {}),
      retry: { ...options.retry, onRetry },
      ...(options.env ? { env: options.env } : {}),
    });
    base = loaded.model;
    endpoint = loaded.endpoint ?? 'the provider\'s default endpoint';
    secrets = loaded.secrets;
  }
  const replay: ReplaySource | undefined = config.replay ? await loadReplaySource(config.replay) : undefined;
  const type = config.agent_type;
  const modelFor = (): LanguageModel => (replay ? createReplayModel(replay, base ? { then: base } : {}) : (base as LanguageModel));
  return {
    type,
    model: base?.name ?? (replay ? 'replay' : null),
    tools: AGENT_PRESETS[type].tools,
    secrets,
    interactive: config.llm_name === 'human',
    run(env, _task, runOptions) {
      const agent = createAgent(type, {
        llm: modelFor(),
        maxSteps: config.max_steps,
        ...(config.n_rewrites_before_pdb !== undefined ? { nRewritesBeforePdb: config.n_rewrites_before_pdb } : {}),
        ...(config.system_prompt ? { systemPrompt: config.system_prompt } : {}),
        ...(config.max_history_steps ? { maxHistorySteps: config.max_history_steps } : {}),
        ...(config.max_eval_chars ? { maxEvalChars: config.max_eval_chars } : {}),
        ...(config.instance_prompt ? { instancePrompt: config.instance_prompt } : {}),
        ...(config.max_history_steps_cutoff !== undefined && config.max_history_steps_cutoff > 0 ? { maxHistoryMessages: config.max_history_steps_cutoff } : {}),
        ...(config.max_history_token_cutoff !== undefined && config.max_history_token_cutoff > 0 ? { maxHistoryTokens: config.max_history_token_cutoff } : {}),
        ...(config.show_current_breakpoints ? { showCurrentBreakpoints: true } : {}),
      });
      return agent.run(env, runOptions);
    },
    async close() {
      await base?.close?.();
    },
  };
}

/** The tools the solution agent needs: the fix goes through `rewrite`, the result through `eval`. */
export const SOLUTION_TOOLS: readonly string[] = ['rewrite', 'eval'];

/**
 * The `solution` agent (no LLM): replays the benchmark's known fix for the task, as tool calls on the
 * env's own `rewrite` tool, then calls `eval`. A sanity check of a benchmark and its sandboxes: every
 * task whose fix is right must be resolved. Its trajectory has the same format as an LLM agent's.
 */
export function createSolutionAgent(config: RunConfig, benchmark: BenchmarkV1 | undefined): TaskAgent {
  if (!benchmark) throw new ConfigError('The solution agent replays a benchmark\'s known fixes: set `benchmark` (e.g. mini-nightmare, aider).');
  const solution = benchmark.solution?.bind(benchmark);
  if (!solution) throw new ConfigError(`The ${benchmark.name} benchmark does not provide known fixes, so the solution agent cannot run on it.`);
  return {
    type: 'solution',
    model: null,
    tools: SOLUTION_TOOLS,
    secrets: [],
    interactive: false,
    async run(env, task, runOptions) {
      const calls = await solution(task, config.solutions_dir ? { solutionsDir: config.solutions_dir } : {});
      if (!calls) throw new SolutionError(`${benchmark.name} has no known fix for task ${task.id}${config.solutions_dir ? ` (looked in ${config.solutions_dir})` : ' (give a folder of fixes with --solutions)'}.`);
      const script: ToolCall[] = [...calls, { name: 'eval', arguments: {} }];
      const llm = createReplayModel(script, { name: 'solution' });
      const agent = createAgent('rewrite_agent', { llm, maxSteps: script.length, systemPrompt: 'The solution agent replays the known fix (no LLM).' });
      const outcome = await agent.run(env, runOptions);
      // Every call of the fix ran and the task is still unresolved: the fix is spent, no step limit was hit.
      if (outcome.result.stopReason === 'max_steps') outcome.result.stopReason = 'replay_exhausted';
      const settings = { calls: calls.length, ...(config.solutions_dir ? { solutionsDir: config.solutions_dir } : {}) };
      outcome.trajectory.agent = { type: 'solution', settings };
      outcome.result.agent = 'solution';
      outcome.result.model = null;
      outcome.result.costUsd = null;
      outcome.trajectory.llm = { provider: 'solution', calls: calls.length };
      return outcome;
    },
    async close() {},
  };
}
