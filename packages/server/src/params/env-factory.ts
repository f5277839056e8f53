import { checkRepositoryPath, EnvConfigError, RepoEnv, taskEnvOptions, type BenchmarkTask, type RepoEnvOptions, type ToolSpec } from '@debug-gym/core';
import { createTerminal, type CreateTerminalConfig } from '@debug-gym/terminal';
import { checkHostParams, checkTaskRepository, type HostPolicy } from './host-policy.js';
import { checkPluginName, clientTool, type PluginPolicy } from './plugin-policy.js';
import { DEFAULT_SERVE_TOOLS, type ResetParams, type TerminalParams } from './reset-params.js';

/** What `{benchmark, task}` in reset params names. */
export interface TaskSelection {
  benchmark: string;
  task: string;
  dataPath?: string;
  benchmarkOptions?: Record<string, unknown>;
}

/** A benchmark task and the tools its benchmark uses by default. */
export interface ResolvedTask {
  task: BenchmarkTask;
  defaultTools?: readonly string[];
}

/** Finds a benchmark task (the CLI loads benchmarks by name). */
export type TaskResolver = (selection: TaskSelection) => Promise<ResolvedTask>;

export interface EnvFactoryOptions extends HostPolicy {
  /** Tools by name (the CLI's bundled plugins); other names resolve through the plugin loader. */
  tools?: Readonly<Record<string, ToolSpec>>;
  /** Where tool names that are not in `tools` resolve from. Default cwd. */
  pluginsFrom?: string;
  /**
   * Which tools and benchmarks a client may name: by default names of installed plugins only,
   * never a path, `file:` URL or package specifier (a module the server would import on its host).
   */
  plugins?: PluginPolicy;
  /** Benchmark names this server loads, for the refusal's message (the CLI's bundled ones). */
  benchmarkNames?: readonly string[];
  /** Needed for `{benchmark, task}` resets; without it they are refused. */
  resolveTask?: TaskResolver;
  /** The terminal when reset params name none. Default `{type: 'auto'}`. */
  defaultTerminal?: TerminalParams;
  /** Refuse `terminal.type: local` (no sandbox): a server reachable from other machines. */
  refuseLocal?: boolean;
}

/** Builds the RepoEnv of validated reset params (its sandbox is created, not started). */
export type EnvFactory = (params: ResetParams) => Promise<RepoEnv>;

/** Env options that reset params set over a benchmark task's own. */
const OVERRIDES = [
  'entrypoint',
  'debugEntrypoint',
  'runTimeout',
  'maxOutputChars',
  'instructions',
  'maxScore',
  'goldPatch',
  'terminateOnResolved',
  'evalOnReset',
  'dirTreeDepth',
  'dirTreeMaxEntries',
  'maxRepositoryEntries',
] as const satisfies ReadonlyArray<keyof ResetParams & keyof RepoEnvOptions>;

/** The RepoEnv of reset params: a repository by path, or a benchmark task with the params over its options. */
export function createEnvFactory(options: EnvFactoryOptions = {}): EnvFactory {
  const policy = options.plugins ?? {};
  return async (params) => {
    // What acts on the server's own host is checked before anything is read, imported or started.
    await checkHostParams(params, options);
    if (params.benchmark) checkPluginName('benchmark', params.benchmark, policy, options.benchmarkNames ?? []);
    const resolved = params.benchmark && params.task ? await resolveTask(options, params) : undefined;
    const envOptions = resolved ? taskOptions(resolved.task, params) : plainOptions(params);
    if (resolved) await checkTaskRepository(envOptions.path, params, options);
    // A path that is no repository is refused before a sandbox is tried.
    await checkRepositoryPath(envOptions.path, envOptions.maxRepositoryEntries);
    // Plugin objects only: RepoEnv never resolves a string a client sent.
    const names = params.tools ?? resolved?.defaultTools ?? DEFAULT_SERVE_TOOLS;
    const tools: ToolSpec[] = [];
    for (const entry of names) {
      const [name, toolOptions] = typeof entry === 'string' ? [entry, undefined] : entry;
      const target = await clientTool(name, options.tools ?? {}, policy, options.pluginsFrom);
      tools.push((toolOptions ? [target, toolOptions] : target) as ToolSpec);
    }
    const refuseLocal = options.refuseLocal === true;
    const terminal = await createTerminal(terminalConfig(params.terminal ?? options.defaultTerminal ?? { type: 'auto' }, resolved?.task, refuseLocal));
    // `auto` falls back to local when neither Docker nor bubblewrap works here.
    if (refuseLocal && terminal.kind === 'local') throw refusedLocal();
    return new RepoEnv({ ...envOptions, terminal, tools, ...(options.pluginsFrom ? { pluginsFrom: options.pluginsFrom } : {}) });
  };
}

async function resolveTask(options: EnvFactoryOptions, params: ResetParams): Promise<ResolvedTask> {
  if (!options.resolveTask) throw new EnvConfigError('This server does not load benchmarks: reset with `path` (a repository) instead of `benchmark` and `task`.');
  const { benchmark, task, dataPath, benchmarkOptions } = params as ResetParams & { benchmark: string; task: string };
  return options.resolveTask({ benchmark, task, ...(dataPath ? { dataPath } : {}), ...(benchmarkOptions ? { benchmarkOptions } : {}) });
}

function plainOptions(params: ResetParams): Omit<RepoEnvOptions, 'terminal'> {
  const { terminal: _terminal, tools: _tools, benchmark: _benchmark, task: _task, dataPath: _dataPath, benchmarkOptions: _benchmarkOptions, path, ...rest } = params;
  return { ...rest, path: path as string };
}

function taskOptions(task: BenchmarkTask, params: ResetParams): Omit<RepoEnvOptions, 'terminal'> {
  const options = taskEnvOptions(task);
  if (!task.instructions) delete options.instructions;
  for (const key of OVERRIDES) if (params[key] !== undefined) (options as Record<string, unknown>)[key] = params[key];
  // Extra hidden / read-only paths and set-up commands add to the task's own.
  if (params.ignorePatterns) options.ignorePatterns = [...(task.ignorePatterns ?? []), ...params.ignorePatterns];
  if (params.readonlyPatterns) options.readonlyPatterns = [...(task.readonlyPatterns ?? []), ...params.readonlyPatterns];
  if (params.setupCommands) options.setupCommands = [...(task.setupCommands ?? []), ...params.setupCommands];
  return options;
}

/** createTerminal's config: the params' terminal, with a Docker task's image settings; a Docker-only task refuses other sandboxes. */
function terminalConfig(terminal: TerminalParams, task: BenchmarkTask | undefined, refuseLocal: boolean): CreateTerminalConfig {
  if (refuseLocal && terminal.type === 'local') throw refusedLocal();
  if (task?.docker?.required && terminal.type !== 'docker') {
    throw new EnvConfigError(`Task ${task.id} runs only in its Docker image (${task.docker.image ?? 'built for it'}): reset with terminal {"type": "docker"}.`);
  }
  const docker = terminal.type === 'docker' ? task?.docker : undefined;
  if (!docker) return terminal as CreateTerminalConfig;
  return {
    ...terminal,
    ...(docker.image ? { image: docker.image } : {}),
    ...(docker.workdir ? { workdir: docker.workdir } : {}),
    ...(docker.python ? { python: docker.python } : {}),
    ...(docker.env ? { env: { ...terminal.env, ...docker.env } } : {}),
  } as CreateTerminalConfig;
}

function refusedLocal(): EnvConfigError {
  return new EnvConfigError(
    "This server refuses the local terminal (commands would run unsandboxed on the server's machine): reset with terminal {\"type\": \"docker\"} or {\"type\": \"bubblewrap\"}, or start the server with --allow-local.",
  );
}
