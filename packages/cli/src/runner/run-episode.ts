import { RepoEnv, type BenchmarkTask, type ToolPluginV1 } from '@debug-gym/core';
import type { AgentRunOptions, EpisodeOutcome } from '@debug-gym/agents';
import { autoTerminalOverride, bubblewrapAvailable, createTerminal, dockerAvailable, ensureImage, type TerminalType } from '@debug-gym/terminal';
import { toolEntryName } from '../bundled-tools.js';
import type { RunConfig } from '../config/config-schema.js';
import type { TaskAgent } from './task-agent.js';
import { existsSync } from 'node:fs';
import { finalChange, gradeInFreshSandbox, type FreshGrading } from './fresh-grading.js';
import { rerunWhileTimedOut, resolvedBy } from './rerun-timed-out.js';
import { envOptions, terminalConfig, toolSpecs } from './task-env.js';
import type { TerminalPools } from './terminal-pools.js';

export type ConcreteTerminalType = Exclude<TerminalType, 'auto'>;

/** `auto` → DEBUG_GYM_AUTO_TERMINAL when set, else the strongest sandbox available here (Docker, then bubblewrap, then local). */
export async function resolveTerminalType(type: TerminalType | undefined, warn: (text: string) => void = () => {}): Promise<ConcreteTerminalType> {
  if (type && type !== 'auto') return type;
  const chosen = autoTerminalOverride();
  if (chosen) return chosen;
  if (await dockerAvailable()) return 'docker';
  if (await bubblewrapAvailable()) return 'bubblewrap';
  warn('debug-gym: neither Docker nor bubblewrap is available: using the local terminal, where commands are NOT sandboxed.');
  return 'local';
}

export interface EpisodeSetup {
  config: RunConfig;
  agent: TaskAgent;
  terminalType: ConcreteTerminalType;
  /** Where tool names that are not bundled resolve from (the config file's folder). */
  pluginsFrom?: string;
  /** The configuration stored in each trajectory. */
  storedConfig: Record<string, unknown>;
  /**
   * Grade each finished episode's final change in a fresh sandbox from the pristine repository and
   * record that result (see fresh-grading.ts). Default false; `executeRun` turns it on for benchmarks.
   */
  freshGrading?: boolean;
  /** Re-run a final evaluation that timed out this many times before scoring it (default 1). */
  timeoutRetries?: number;
  /** Warm sandboxes for the episodes (`terminal.pool_size`); absent: every episode starts its own. */
  pools?: TerminalPools;
  /** The `mcp_servers` tools (discovered once for the run), added after the env's own tools. */
  mcpTools?: readonly ToolPluginV1[];
}

/** An episode result with the fresh grading that replaced its score. */
export type GradedResult = EpisodeOutcome['result'] & { grading?: FreshGrading | { error: string } };

/** The env's tool entries: the config's (plus `rewrite` and `eval` for the solution agent), else the agent's. */
export function envToolEntries(config: RunConfig, agent: TaskAgent): RunConfig['tools'] & object {
  const entries = config.tools ?? [...agent.tools];
  if (config.agent_type !== 'solution' || !config.tools) return entries;
  const names = new Set(entries.map(toolEntryName));
  return [...entries, ...agent.tools.filter((name) => !names.has(name))];
}

/** One episode of `task`: a fresh sandbox and env, the agent's run, and the env closed whatever happens. */
export async function runEpisode(setup: EpisodeSetup, task: BenchmarkTask, options: Omit<AgentRunOptions, 'task' | 'taskDetails' | 'config'>): Promise<EpisodeOutcome> {
  const { config, agent, terminalType } = setup;
  const terminalOptions = terminalConfig(config.terminal, terminalType, task);
  if (terminalType === 'docker' && task.docker?.dockerfile && !task.docker.image && !config.terminal.image && !process.env.DEBUG_GYM_DOCKER_IMAGE) {
    (terminalOptions as { image?: string }).image = await ensureImage(task.docker.dockerfile);
  }
  const terminal = setup.pools ? await setup.pools.terminal(terminalOptions) : await createTerminal(terminalOptions);
  const tools = [...toolSpecs({ ...config, tools: envToolEntries(config, agent) }, agent.tools), ...(setup.mcpTools ?? [])];
  const envOpts = envOptions(config, task, tools, setup.pluginsFrom);
  const env = new RepoEnv({ ...envOpts, terminal });
  const taskDetails = {
    benchmark: task.benchmark,
    path: task.path,
    entrypoint: task.entrypoint,
    ...(task.needsNetwork ? { needsNetwork: true } : {}),
    ...(task.flaky ? { flaky: true } : {}),
  };
  // Stopping the run cancels the running step at once: closing the env kills its commands.
  const cancel = (): void => void env.close().catch(() => undefined);
  options.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const outcome = await agent.run(env, task, { ...options, task: task.id, taskDetails, config: setup.storedConfig });
    const finished = outcome.result.status === 'resolved' || outcome.result.status === 'unresolved' || outcome.result.status === 'timed_out';
    const retries = setup.timeoutRetries ?? 1;
    // A benchmark with its own evaluation procedure (SWE-bench) already restores the tests and applies the hidden ones.
    if (setup.freshGrading && finished && !envOpts.evaluation && existsSync(task.path) && !options.signal?.aborted) {
      await recordFreshGrading(outcome, env, task.path, async () => new RepoEnv({ ...envOpts, tools: [], terminal: await createTerminal(terminalOptions) }), retries);
    } else if (outcome.result.status === 'timed_out' && !options.signal?.aborted) {
      await retryTimedOutEvaluation(outcome, env, retries);
    }
    return outcome;
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    await env.close().catch(() => undefined);
  }
}

/** Replace the episode's score with the fresh grading's; keep the episode's own next to it. */
async function recordFreshGrading(outcome: EpisodeOutcome, env: RepoEnv, hostDir: string, freshEnv: () => Promise<RepoEnv>, timeoutRetries: number): Promise<void> {
  const result = outcome.result as GradedResult;
  const inEpisode = { score: result.score, maxScore: result.maxScore, resolved: result.status === 'resolved' };
  try {
    const change = await finalChange(env.terminal, hostDir);
    const grading = await gradeInFreshSandbox(change, hostDir, await freshEnv(), inEpisode, { timeoutRetries });
    const status = grading.resolved ? 'resolved' : grading.timedOut ? 'timed_out' : 'unresolved';
    Object.assign(result, { score: grading.score, maxScore: grading.maxScore, success: grading.resolved, status, grading });
    if (grading.retries > 0) result.evalRetries = grading.retries;
  } catch (error) {
    result.grading = { error: `the fresh-sandbox grading failed, the episode's own score stands: ${(error as Error).message}` };
  }
  if (outcome.trajectory.result) outcome.trajectory.result = result;
}

/**
 * The episode ended on a test run that hit its time limit (a busy machine can do that to a correct
 * fix): run the evaluation again, up to `retries` times, and score the first run that finishes.
 */
export async function retryTimedOutEvaluation(outcome: EpisodeOutcome, env: Pick<RepoEnv, 'evaluate'>, retries: number): Promise<void> {
  if (retries < 1) return;
  const result = outcome.result;
  const { result: run, reruns } = await rerunWhileTimedOut(await env.evaluate(), () => env.evaluate(), retries - 1);
  result.evalRetries = reruns + 1;
  if (run.maxScore !== null) result.maxScore = run.maxScore;
  result.score = run.score;
  if (!run.timedOut) {
    const resolved = resolvedBy(run, result.maxScore);
    Object.assign(result, { success: resolved, status: resolved ? 'resolved' : 'unresolved' });
  }
  if (outcome.trajectory.result) outcome.trajectory.result = result;
}
