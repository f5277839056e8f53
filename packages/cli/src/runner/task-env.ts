import { basename } from 'node:path';
import { EnvConfigError, taskEnvOptions, type BenchmarkTask, type RepoEnvOptions, type ToolSpec } from '@debug-gym/core';
import type { CreateTerminalConfig } from '@debug-gym/terminal';
import { toToolSpec } from '../bundled-tools.js';
import type { EnvSection, RunConfig, TerminalSection } from '../config/config-schema.js';
import { ConfigError } from '../config/config-error.js';

/** The one task of a run over a custom repository (`env: { path, entrypoint }`). */
export function customTask(env: EnvSection): BenchmarkTask {
  if (!env.path) throw new ConfigError('Nothing to run: set `benchmark` (aider, mini-nightmare, swebench) or `env.path` (a repository) in the config.');
  return {
    id: env.task_name ?? basename(env.path),
    benchmark: 'custom',
    path: env.path,
    instructions: env.instructions ?? '',
    entrypoint: env.entrypoint ?? 'python -m pytest -sq .',
  };
}

/** RepoEnv options (without the terminal) of `task` under `config`: the task's own, then the config's `env:` keys. */
export function envOptions(config: RunConfig, task: BenchmarkTask, tools: readonly ToolSpec[], pluginsFrom?: string): Omit<RepoEnvOptions, 'terminal'> {
  const env = config.env;
  const options: Omit<RepoEnvOptions, 'terminal'> = { ...taskEnvOptions(task), tools };
  if (!task.instructions) delete options.instructions;
  if (task.benchmark !== 'custom') {
    if (env.entrypoint !== undefined) options.entrypoint = env.entrypoint;
    if (env.instructions !== undefined) options.instructions = env.instructions;
  }
  if (env.debug_entrypoint !== undefined) options.debugEntrypoint = env.debug_entrypoint;
  if (env.run_timeout !== undefined) options.runTimeout = env.run_timeout;
  if (env.max_output_chars !== undefined) options.maxOutputChars = env.max_output_chars;
  if (env.ignore_patterns) options.ignorePatterns = [...(task.ignorePatterns ?? []), ...env.ignore_patterns];
  if (env.readonly_patterns) options.readonlyPatterns = [...(task.readonlyPatterns ?? []), ...env.readonly_patterns];
  if (env.setup_commands) options.setupCommands = [...(task.setupCommands ?? []), ...env.setup_commands];
  if (env.terminate_on_resolved !== undefined) options.terminateOnResolved = env.terminate_on_resolved;
  if (env.eval_on_reset !== undefined) options.evalOnReset = env.eval_on_reset;
  if (env.dir_tree_depth !== undefined) options.dirTreeDepth = env.dir_tree_depth;
  if (env.fork_server !== undefined) options.forkServer = env.fork_server;
  if (env.fork_standbys !== undefined) options.forkStandbys = env.fork_standbys;
  if (pluginsFrom) options.pluginsFrom = pluginsFrom;
  return options;
}

/** The env's tools: the config's `tools`, else the agent's. */
export function toolSpecs(config: RunConfig, agentTools: readonly string[]): ToolSpec[] {
  return (config.tools ?? agentTools).map((entry) => toToolSpec(entry));
}

/**
 * createTerminal's config for `task`: the config's `terminal:` keys (snake_case) with `type` already
 * resolved (no `auto`), plus the task's Docker settings when the terminal is Docker. A task that runs
 * only in its image is refused on other terminals.
 */
export function terminalConfig(terminal: TerminalSection, type: 'local' | 'bubblewrap' | 'docker' | 'kubernetes', task?: BenchmarkTask): CreateTerminalConfig {
  const common: Record<string, unknown> = {};
  if (terminal.python !== undefined) common.python = terminal.python;
  if (terminal.env) common.env = { ...terminal.env };
  if (terminal.max_output_bytes !== undefined) common.maxOutputBytes = terminal.max_output_bytes;
  if (terminal.default_timeout_seconds !== undefined) common.defaultTimeoutMs = terminal.default_timeout_seconds * 1000;
  if (task?.docker?.required && type !== 'docker' && !(type === 'kubernetes' && task.docker.image)) {
    throw new EnvConfigError(`Task ${task.id} runs only in its Docker image (${task.docker.image ?? 'built for it'}); use --terminal docker (or terminal.type: docker).`);
  }
  if (type === 'local') return { type, ...common, ...(terminal.shell ? { shell: terminal.shell } : {}), ...(terminal.fork_zygote !== undefined ? { forkZygote: terminal.fork_zygote } : {}) };
  if (type === 'bubblewrap') {
    return {
      type,
      ...common,
      ...(terminal.bwrap_path ? { bwrapPath: terminal.bwrap_path } : {}),
      ...(terminal.max_processes !== undefined ? { maxProcesses: terminal.max_processes } : {}),
      ...(terminal.max_memory_bytes !== undefined ? { maxMemoryBytes: terminal.max_memory_bytes } : {}),
      ...(terminal.read_only_paths ? { readOnlyPaths: terminal.read_only_paths } : {}),
    };
  }
  if (type === 'kubernetes') return kubernetesConfig(terminal, common, task);
  return {
    type,
    ...common,
    ...containerSettings(terminal),
    ...(terminal.network !== undefined ? { network: terminal.network } : {}),
    ...(terminal.init !== undefined ? { init: terminal.init } : {}),
    ...(terminal.read_only_root !== undefined ? { readOnlyRoot: terminal.read_only_root } : {}),
    ...taskImageSettings(task, common),
  };
}

/** What the Docker and Kubernetes terminals configure alike: the image and the container's limits. */
function containerSettings(terminal: TerminalSection): Record<string, unknown> {
  return {
    ...(terminal.image !== undefined ? { image: terminal.image } : {}),
    ...(terminal.setup_commands ? { setupCommands: terminal.setup_commands } : {}),
    ...(terminal.memory !== undefined ? { memory: terminal.memory } : {}),
    ...(terminal.cpus !== undefined ? { cpus: terminal.cpus } : {}),
    ...(terminal.pids_limit !== undefined ? { pidsLimit: terminal.pids_limit } : {}),
    ...(terminal.workdir !== undefined ? { workdir: terminal.workdir } : {}),
    ...(terminal.labels ? { labels: terminal.labels } : {}),
    ...(terminal.tmpfs ? { tmpfs: terminal.tmpfs } : {}),
  };
}

/** The task's image settings, which win over the config's: a SWE-bench instance only works in its own image. */
function taskImageSettings(task: BenchmarkTask | undefined, common: Record<string, unknown>): Record<string, unknown> {
  const docker = task?.docker ?? {};
  return {
    ...(docker.image ? { image: docker.image } : {}),
    ...(docker.workdir ? { workdir: docker.workdir } : {}),
    ...(docker.python ? { python: docker.python } : {}),
    ...(docker.env ? { env: { ...(common.env as Record<string, string> | undefined), ...docker.env } } : {}),
  };
}

/** createTerminal's config for the kubernetes terminal; a task's image (pushed where the cluster pulls from) wins. */
function kubernetesConfig(terminal: TerminalSection, common: Record<string, unknown>, task?: BenchmarkTask): CreateTerminalConfig {
  return {
    type: 'kubernetes',
    ...common,
    ...containerSettings(terminal),
    ...(typeof terminal.network === 'boolean' ? { network: terminal.network } : {}),
    ...(terminal.read_only_root !== undefined ? { readOnlyRootFilesystem: terminal.read_only_root } : {}),
    ...(terminal.namespace !== undefined ? { namespace: terminal.namespace } : {}),
    ...(terminal.context !== undefined ? { context: terminal.context } : {}),
    ...(terminal.kubeconfig !== undefined ? { kubeconfig: terminal.kubeconfig } : {}),
    ...(terminal.node_selector ? { nodeSelector: terminal.node_selector } : {}),
    ...(terminal.tolerations ? { tolerations: terminal.tolerations } : {}),
    ...(terminal.image_pull_secrets ? { imagePullSecrets: terminal.image_pull_secrets } : {}),
    ...(terminal.priority_class_name !== undefined ? { priorityClassName: terminal.priority_class_name } : {}),
    ...(terminal.runtime_class_name !== undefined ? { runtimeClassName: terminal.runtime_class_name } : {}),
    ...(terminal.start_timeout_seconds !== undefined ? { startTimeoutMs: terminal.start_timeout_seconds * 1000 } : {}),
    ...taskImageSettings(task, common),
  };
}
