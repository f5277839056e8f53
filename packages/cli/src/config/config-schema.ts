import * as z from 'zod';

/** The agents a config section can select (`agent_type`, default: the section's name). */
export const AGENT_TYPES = ['debug_agent', 'rewrite_agent', 'debug_5_agent', 'froggy_agent', 'simple_agent', 'solution'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

const positiveInt = z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1');
const nonNegative = z.number({ error: 'must be a number' }).min(0, 'must be at least 0');
const stringList = z.array(z.string(), { error: 'must be a list of strings' });

/** `env:` — the RepoEnv options, in the original's snake_case (a custom repository: `path` + `entrypoint`). */
export const envSchema = z.strictObject({
  path: z.string().optional(),
  task_name: z.string().optional(),
  entrypoint: z.string().optional(),
  debug_entrypoint: z.string().optional(),
  instructions: z.string().optional(),
  run_timeout: nonNegative.optional(),
  max_output_chars: positiveInt.optional(),
  ignore_patterns: stringList.optional(),
  readonly_patterns: stringList.optional(),
  setup_commands: stringList.optional(),
  terminate_on_resolved: z.boolean().optional(),
  eval_on_reset: z.boolean().optional(),
  dir_tree_depth: positiveInt.optional(),
  /** Fork test runs and pdb starts from a warm interpreter in the sandbox (default true). */
  fork_server: z.boolean().optional(),
  /** With the fork server, keep a child forked ahead for each kind of run (default true). */
  fork_standbys: z.boolean().optional(),
});

/** `terminal:` — the sandbox (createTerminal's options, snake_case). */
export const terminalSchema = z.strictObject({
  type: z.enum(['auto', 'local', 'bubblewrap', 'docker', 'kubernetes'], { error: "must be 'auto', 'local', 'bubblewrap', 'docker' or 'kubernetes'" }).optional(),
  python: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  max_output_bytes: positiveInt.optional(),
  default_timeout_seconds: nonNegative.optional(),
  /** Sandboxes kept started (fork server warm) for the next episodes: resets take one instead of starting one. Default 0. */
  pool_size: z.number({ error: 'must be a number' }).int('must be a whole number').min(0, 'must be at least 0').optional(),
  // local
  shell: z.string().optional(),
  /** Fork each sandbox's fork server from one warm zygote of the process (default true; local only). */
  fork_zygote: z.boolean().optional(),
  // bubblewrap
  bwrap_path: z.string().optional(),
  max_processes: positiveInt.optional(),
  max_memory_bytes: positiveInt.optional(),
  read_only_paths: stringList.optional(),
  // docker
  image: z.string().optional(),
  setup_commands: stringList.optional(),
  memory: z.union([z.number(), z.string()], { error: "must be bytes or a size like '2g'" }).optional(),
  cpus: nonNegative.optional(),
  pids_limit: positiveInt.optional(),
  network: z.union([z.boolean(), z.string()], { error: 'must be true, false or a network name' }).optional(),
  workdir: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  init: z.boolean().optional(),
  /** The container's root file system read-only, only sized tmpfs writable (default true; Kubernetes: readOnlyRootFilesystem). */
  read_only_root: z.boolean().optional(),
  /** More sized writable paths of the read-only root (path: size), e.g. `/root: 256m`. */
  tmpfs: z.record(z.string(), z.union([z.number(), z.string()]), { error: "must map paths to bytes or sizes like '64m'" }).optional(),
  // kubernetes (also: image, setup_commands, memory, cpus, pids_limit, network, workdir, labels)
  namespace: z.string().optional(),
  context: z.string().optional(),
  kubeconfig: z.string().optional(),
  node_selector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(z.record(z.string(), z.unknown()), { error: 'must be a list of Kubernetes tolerations' }).optional(),
  image_pull_secrets: stringList.optional(),
  priority_class_name: z.string().optional(),
  runtime_class_name: z.string().optional(),
  start_timeout_seconds: nonNegative.optional(),
});

/**
 * `mcp_servers.<name>:` — an MCP server whose tools become env tools (the original's keys; `command`,
 * `args`, `env` and `cwd` add stdio servers). `${VAR}` in `headers` and `env` values reads the environment.
 */
export const mcpServerSchema = z.strictObject({
  url: z.string().optional(),
  transport: z.enum(['streamable_http', 'sse', 'stdio'], { error: "must be 'streamable_http', 'sse' or 'stdio'" }).optional(),
  headers: z.record(z.string(), z.string(), { error: 'must be a mapping of header names to strings' }).optional(),
  command: z.string().optional(),
  args: stringList.optional(),
  env: z.record(z.string(), z.string(), { error: 'must be a mapping of variable names to strings' }).optional(),
  cwd: z.string().optional(),
  tool_prefix: z.string().regex(/^[\w-]*$/, 'may only contain letters, digits, `_` and `-`').optional(),
  tools: stringList.optional(),
  timeout: z.number({ error: 'must be a number of seconds' }).positive('must be above 0').optional(),
});

const toolEntry = z.union([z.string(), z.record(z.string(), z.record(z.string(), z.unknown()).nullable())], {
  error: 'must be a list of tool names, or of `{name: {options}}` items',
});

/** One section (`base:` or an agent's): every key optional; the merged result gets the defaults. */
export const sectionSchema = z.strictObject({
  agent_type: z.enum(AGENT_TYPES, { error: `must be one of ${AGENT_TYPES.join(', ')}` }).optional(),
  output_path: z.string().optional(),
  run_id: z.string().regex(/^[\w.-]+$/, 'may only contain letters, digits, `_`, `-` and `.`').optional(),
  benchmark: z.string().nullable().optional(),
  tasks: z.union([z.string(), z.array(z.string())], { error: "must be 'all', a task id, or a list of task ids" }).optional(),
  data_path: z.string().nullable().optional(),
  solutions_dir: z.string().nullable().optional(),
  benchmark_options: z.record(z.string(), z.unknown()).optional(),
  env: envSchema.optional(),
  terminal: terminalSchema.optional(),
  tools: z.array(toolEntry, { error: 'must be a list of tool names' }).optional(),
  /** MCP servers whose tools are added to the env's (`mcp_servers: { name: { url | command, ... } }`). */
  mcp_servers: z.record(z.string(), mcpServerSchema, { error: 'must be a mapping of server names to { url: ... } or { command: ... }' }).optional(),
  llm_name: z.string().nullable().optional(),
  llm_config_file_path: z.string().nullable().optional(),
  generate_kwargs: z.record(z.string(), z.unknown()).optional(),
  replay: z.string().nullable().optional(),
  max_steps: positiveInt.optional(),
  n_rewrites_before_pdb: z.number().int().min(0).optional(),
  system_prompt: z.string().nullable().optional(),
  /** froggy_agent, simple_agent: the task prompt template (`{{ info.instructions }}`). */
  instance_prompt: z.string().nullable().optional(),
  /** froggy_agent, simple_agent: the original's history cut-offs (messages; tokens). */
  max_history_steps_cutoff: z.number().int().optional(),
  max_history_token_cutoff: z.number().int().optional(),
  /** froggy_agent: the current breakpoints in the system prompt. */
  show_current_breakpoints: z.boolean().optional(),
  max_history_steps: positiveInt.nullable().optional(),
  max_eval_chars: positiveInt.optional(),
  workers: positiveInt.optional(),
  /** Grade each benchmark episode's final change again in a fresh sandbox (default: on for benchmarks). */
  fresh_grading: z.boolean().optional(),
  /** Re-run a final evaluation that hit its time limit this many times before scoring it (default 1). */
  timeout_retries: z.number().int().min(0).max(5).optional(),
});

export type ConfigSection = z.infer<typeof sectionSchema>;
export type EnvSection = z.infer<typeof envSchema>;
export type TerminalSection = z.infer<typeof terminalSchema>;
export type McpServerSection = z.infer<typeof mcpServerSchema>;

/** The merged, validated configuration of one run: `base` + the agent's section + `-p` overrides. */
export interface RunConfig extends ConfigSection {
  agent_type: AgentType;
  output_path: string;
  run_id: string;
  tasks: string | string[];
  env: EnvSection;
  terminal: TerminalSection;
  max_steps: number;
  workers: number;
}
