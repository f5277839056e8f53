import { RepoEnv, type BenchmarkTask } from '@debug-gym/core';
import type { AgentRunOptions, EpisodeOutcome } from '@debug-gym/agents';
import { bubblewrapAvailable, createTerminal, dockerAvailable, ensureImage, type TerminalType } from '@debug-gym/terminal';
import { toolEntryName } from '../bundled-tools.js';
import type { RunConfig } from '../config/config-schema.js';
import type { TaskAgent } from './task-agent.js';
import { envOptions, terminalConfig, toolSpecs } from './task-env.js';

export type ConcreteTerminalType = Exclude<TerminalType, 'auto'>;

/** `auto` → the strongest sandbox available here (Docker, then bubblewrap, then local). */
export async function resolveTerminalType(type: TerminalType | undefined, warn: (text: string) => void = () => {}): Promise<ConcreteTerminalType> {
  if (type && type !== 'auto') return type;
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
}

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
  const terminal = await createTerminal(terminalOptions);
  const tools = toolSpecs({ ...config, tools: envToolEntries(config, agent) }, agent.tools);
  const env = new RepoEnv({ ...envOptions(config, task, tools, setup.pluginsFrom), terminal });
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
    return await agent.run(env, task, { ...options, task: task.id, taskDetails, config: setup.storedConfig });
  } finally {
    options.signal?.removeEventListener('abort', cancel);
    await env.close().catch(() => undefined);
  }
}
