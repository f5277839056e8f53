import { resolveRunConfig } from '../config/load-run-config.js';
import { ConfigError } from '../config/config-error.js';
import { benchmarkKey } from '../bench/load-benchmark.js';
import { executeRun, type ExecuteRunOptions } from '../runner/execute-run.js';
import type { RunResults } from '../runner/results.js';

export interface BenchCommandOptions extends Omit<ExecuteRunOptions, 'config' | 'configDir'> {
  /** `debug_agent` (default), `rewrite_agent`, `debug_5_agent` or `solution`. */
  agent?: string;
  /** Model name from llm.yaml, or `human`. */
  llm?: string;
  tasks?: string;
  workers?: number;
  terminal?: string;
  dataPath?: string;
  /** Results folder (default `exps`): `<out>/<run id>/`. */
  out?: string;
  /** Folder of known fixes for the solution agent (mini-nightmare: `<task>.patch`). */
  solutions?: string;
  /** Tool names (default: the agent's). */
  tools?: string;
  maxSteps?: number;
  runId?: string;
  params?: readonly string[];
}

/** `debug-gym bench <name>`: run an agent over a benchmark, resumable, with a results table and JSON. */
export async function benchCommand(name: string, options: BenchCommandOptions = {}): Promise<RunResults> {
  const agent = options.agent ?? 'debug_agent';
  const bench = benchmarkKey(name);
  if (agent !== 'solution' && !options.llm && !(options.params ?? []).some((item) => /(^|\.)(llm_name|replay)=/.test(item))) {
    throw new ConfigError(`Which model? Give --llm NAME (a model from llm.yaml, or human), or --agent solution to replay the known fixes.`);
  }
  const base: Record<string, unknown> = {
    benchmark: name,
    output_path: options.out ?? 'exps',
    run_id: options.runId ?? [bench, agent, options.llm, options.terminal].filter(Boolean).join('_').replace(/[^\w.-]+/g, '-'),
  };
  if (options.llm) base.llm_name = options.llm;
  if (options.tasks) base.tasks = options.tasks.split(',').map((id) => id.trim()).filter(Boolean);
  if (options.workers !== undefined) base.workers = options.workers;
  if (options.terminal) base.terminal = { type: options.terminal };
  if (options.dataPath) base.data_path = options.dataPath;
  if (options.solutions) base.solutions_dir = options.solutions;
  if (options.tools) base.tools = options.tools.split(',').map((tool) => tool.trim()).filter(Boolean);
  if (options.maxSteps !== undefined) base.max_steps = options.maxSteps;
  if (options.freshGrading === false) base.fresh_grading = false;
  const config = resolveRunConfig({ base }, { agent, overrides: options.params ?? [], source: `bench ${name}` });
  // The flag only ever turns grading off; left on, the config (`fresh_grading`, `-p`) decides.
  const { freshGrading: _flag, ...rest } = options;
  return executeRun({ ...rest, config });
}
