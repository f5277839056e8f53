import { constants } from 'node:os';
import { resolve } from 'node:path';
import { redactSecrets, type TrajectoryStep } from '@debug-gym/agents';
import type { BenchmarkDataset, BenchmarkTask, BenchmarkV1, EnvInfo } from '@debug-gym/core';
import { loadBenchmark } from '../bench/load-benchmark.js';
import { toolEntryName } from '../bundled-tools.js';
import { ConfigError } from '../config/config-error.js';
import type { RunConfig } from '../config/config-schema.js';
import { ExitError } from '../exit-error.js';
import { createPauser } from './debug-pause.js';
import { createLoadProgress } from './load-progress.js';
import { createReporter } from './reporters.js';
import { computeTotals, taskSummary, totalsText, writeResults, type RunResults } from './results.js';
import { renderResultsTable } from './results-table.js';
import { envToolEntries, resolveTerminalType, runEpisode, type EpisodeSetup } from './run-episode.js';
import { discoverConfiguredMcpTools } from './mcp-servers.js';
import { stepBlock, stepLine } from './step-log.js';
import { createTaskAgent, type CreateTaskAgentOptions } from './task-agent.js';
import { customTask } from './task-env.js';
import { runTasks } from './task-runner.js';
import { TerminalPools } from './terminal-pools.js';

export interface RunIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

export interface ExecuteRunOptions {
  config: RunConfig;
  /** The config file's folder: tool and benchmark paths resolve from it. */
  configDir?: string;
  /** Re-run tasks that finished in an earlier launch. */
  force?: boolean;
  /** 1: one line per step; 2: every step in full. */
  verbose?: number;
  /** Pause after each step until the user types `c` (one task at a time). */
  debug?: boolean;
  io?: Partial<RunIo>;
  /** Stops the run like Ctrl-C. */
  signal?: AbortSignal;
  /** Ctrl-C stops the run gracefully (default true). */
  handleSigint?: boolean;
  /** The benchmark object to use instead of loading `config.benchmark` (tests, embedding). */
  benchmark?: BenchmarkV1;
  agentOptions?: Pick<CreateTaskAgentOptions, 'retry' | 'env'>;
  /**
   * Grade each episode's final change in a fresh sandbox from the pristine repository and record
   * that result (results.json, trajectories). Default: on for a benchmark, off for a custom repository.
   */
  freshGrading?: boolean;
}

/** The list of task ids `tasks` selects (undefined: all). */
export function selectedTaskIds(tasks: string | readonly string[]): string[] | undefined {
  const list = typeof tasks === 'string' ? (tasks === 'all' ? [] : tasks.split(',')) : [...tasks];
  const ids = list.map((id) => id.trim()).filter(Boolean);
  return ids.length === 0 ? undefined : ids;
}

/**
 * Run a configuration: load the tasks (a benchmark's or the custom repository), run them with the
 * configured workers (resuming finished ones), write trajectories, `summary.jsonl` and
 * `results.json` under `<output_path>/<run_id>/`, and print the results table.
 */
export async function executeRun(options: ExecuteRunOptions): Promise<RunResults> {
  const io: RunIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, ...options.io };
  const say = (text: string): void => void io.stdout.write(`${text}\n`);
  const warn = (text: string): void => void io.stderr.write(`${text}\n`);
  const config = options.config;
  const startedAt = new Date();
  if (config.benchmark && config.env.path) {
    throw new ConfigError('The config sets both `benchmark` and `env.path`: a run is over a benchmark or over one repository, not both.');
  }
  let benchmark: BenchmarkV1 | undefined = options.benchmark;
  let dataset: BenchmarkDataset | null = null;
  let tasks: BenchmarkTask[];
  const ids = selectedTaskIds(config.tasks);
  if (config.benchmark || benchmark) {
    benchmark ??= await loadBenchmark(config.benchmark as string, options.configDir ? { from: options.configDir } : {});
    const loading = createLoadProgress(benchmark.name, io.stderr);
    dataset = await benchmark.loadTasks({
      ...(config.data_path ? { dataPath: config.data_path } : {}),
      ...(ids ? { tasks: ids } : {}),
      ...(config.benchmark_options ? { options: config.benchmark_options } : {}),
      onProgress: (progress) => loading.onProgress(progress),
    }).finally(() => loading.stop());
    for (const warning of dataset.warnings) warn(`WARNING (${dataset.benchmark} data): ${warning}`);
    if (!dataset.complete) {
      warn(`WARNING: the ${dataset.benchmark} data at ${dataset.source} is PARTIAL (${dataset.tasks.length}${dataset.expectedCount ? ` of ${dataset.expectedCount}` : ''} tasks): the score will not be the benchmark's.`);
    }
    tasks = dataset.tasks;
  } else {
    tasks = [customTask(config.env)];
  }
  const agent = await createTaskAgent(config, { ...options.agentOptions, ...(benchmark ? { benchmark } : {}), human: { input: io.stdin, output: io.stdout }, log: warn });
  const interactive = agent.interactive || options.debug === true;
  const workers = interactive ? 1 : config.workers;
  if (interactive && config.workers > 1) warn(`Running one task at a time (${agent.interactive ? 'human model' : '--debug'}), not ${config.workers}.`);
  // Before the first episode: a server that cannot be reached stops the run here, not in every episode.
  const mcpTools = await discoverConfiguredMcpTools(config, {
    ...(options.configDir ? { configDir: options.configDir } : {}),
    reservedNames: envToolEntries(config, agent).map(toolEntryName),
    log: warn,
  }).catch(async (error: unknown) => {
    await agent.close();
    throw error;
  });
  const terminalType = await resolveTerminalType(config.terminal.type, warn);
  const outDir = resolve(config.output_path, config.run_id);
  const what = dataset ? `${tasks.length} ${dataset.benchmark} task${tasks.length === 1 ? '' : 's'}` : `${tasks[0]?.id} (${tasks[0]?.path})`;
  say(`debug-gym: ${agent.type}${agent.model ? ` with ${agent.model}` : ''} on ${what}, ${terminalType} terminal, ${workers} worker${workers === 1 ? '' : 's'} → ${outDir}`);

  const controller = new AbortController();
  const stopRun = (): void => controller.abort(new Error('stopped'));
  options.signal?.addEventListener('abort', stopRun, { once: true });
  // SIGINT, SIGTERM, SIGHUP: running steps are cancelled (their env closed) and partial results
  // written. The same signal again quits at once: the default action, re-raised without our handlers.
  let stoppedBy: NodeJS.Signals | undefined;
  const onSecondSignal = (signal: NodeJS.Signals): void => {
    for (const name of STOP_SIGNALS) process.off(name, onSecondSignal);
    process.kill(process.pid, signal);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    warn(`\nStopping (${signal}): cancelling running steps, closing the sandboxes and writing partial results (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to quit at once)...`);
    stoppedBy = signal;
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
    for (const name of STOP_SIGNALS) process.on(name, onSecondSignal);
    stopRun();
  };
  if (options.handleSigint !== false && !agent.interactive) for (const name of STOP_SIGNALS) process.on(name, onSignal);
  const reporter = createReporter({ stream: io.stdout, bar: Boolean(io.stdout.isTTY) && !interactive && !options.verbose });
  const pauser = options.debug && !agent.interactive ? createPauser({ input: io.stdin, output: io.stdout }) : undefined;
  const onStep = async (step: TrajectoryStep, info: EnvInfo, task: string): Promise<void> => {
    // The human model shows each observation when it asks for the next call: show the last one too.
    if (agent.interactive && info.terminated) io.stdout.write(stepBlock(task, step));
    if (pauser) {
      io.stdout.write(stepBlock(task, step));
      if (!(await pauser.pause())) stopRun();
    } else if ((options.verbose ?? 0) >= 2) reporter.log(stepBlock(task, step));
    else if ((options.verbose ?? 0) >= 1) reporter.log(stepLine(task, step));
  };
  const setup: EpisodeSetup = {
    config,
    agent,
    terminalType,
    ...(options.configDir ? { pluginsFrom: options.configDir } : {}),
    storedConfig: redactSecrets(config as unknown as Record<string, unknown>),
    freshGrading: options.freshGrading ?? config.fresh_grading ?? dataset !== null,
    timeoutRetries: config.timeout_retries ?? 1,
    ...(config.terminal.pool_size ? { pools: new TerminalPools(config.terminal.pool_size) } : {}),
    ...(mcpTools.length > 0 ? { mcpTools } : {}),
  };
  let outcome;
  try {
    outcome = await runTasks({
      tasks,
      outDir,
      workers,
      force: options.force === true,
      signal: controller.signal,
      reporter,
      knownSecrets: agent.secrets,
      agent: agent.type,
      model: agent.model,
      runTask: (task, signal) => runEpisode(setup, task, { signal, onStep: (step, info) => onStep(step, info, task.id), knownSecrets: agent.secrets }),
    });
  } finally {
    for (const name of STOP_SIGNALS) process.off(name, onSignal);
    for (const name of STOP_SIGNALS) process.off(name, onSecondSignal);
    options.signal?.removeEventListener('abort', stopRun);
    pauser?.close();
    await agent.close();
    await setup.pools?.close();
  }
  const summaries = outcome.records.map(taskSummary);
  const partialReasons: string[] = [];
  if (dataset && !dataset.complete) partialReasons.push(`the ${dataset.benchmark} data is partial (${dataset.tasks.length}${dataset.expectedCount ? ` of ${dataset.expectedCount}` : ''} tasks, ${dataset.source})`);
  if (dataset && ids) partialReasons.push(`only ${tasks.length} task${tasks.length === 1 ? ' was' : 's were'} selected (--tasks)`);
  if (outcome.aborted) partialReasons.push('the run was stopped before every task finished');
  if (outcome.fatal) partialReasons.push('the run stopped on a setup error');
  const finishedAt = new Date();
  const results: RunResults = {
    runId: config.run_id,
    outDir,
    agent: agent.type,
    model: agent.model,
    benchmark: dataset?.benchmark ?? null,
    terminal: terminalType,
    dataset: dataset ? { source: dataset.source, complete: dataset.complete, ...(dataset.expectedCount === undefined ? {} : { expectedCount: dataset.expectedCount }), warnings: dataset.warnings } : null,
    subset: Boolean(dataset && ids),
    partial: partialReasons.length > 0,
    partialReasons,
    aborted: outcome.aborted,
    fatal: outcome.fatal,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    config: setup.storedConfig,
    totals: computeTotals(summaries, outcome.notRun.length, finishedAt.getTime() - startedAt.getTime()),
    tasks: summaries,
    notRun: outcome.notRun,
  };
  const path = await writeResults(results);
  say(`\n${renderResultsTable(summaries)}`);
  say(totalsText(results));
  say(`Results: ${path}\nTrajectories: ${outDir}/<task>/trajectory.json, one line per episode in ${outDir}/summary.jsonl`);
  if (outcome.fatal) throw new ExitError(1, `Stopped: the first episodes all failed the same way, so every one would:\n  ${outcome.fatal}\nFix it and run the same command again (finished tasks are kept). Partial results: ${path}`);
  if (outcome.aborted) throw new ExitError(stoppedBy ? 128 + constants.signals[stoppedBy] : 130, `Stopped: partial results written to ${path}. Run the same command again to resume.`);
  return results;
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
