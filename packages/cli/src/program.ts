import { Command, InvalidArgumentError, Option } from 'commander';
import { EXPORT_FORMATS } from '@debug-gym/trajectory-formats';
import { benchCommand, type BenchCommandOptions } from './commands/bench.js';
import { checkCommand, type CheckCommandOptions } from './commands/check.js';
import { runDemo, type DemoOptions } from './commands/demo.js';
import { runExport, type ExportCommandOptions } from './commands/export.js';
import { type GcCommandOptions, runGc } from './commands/gc.js';
import { runInitLlmConfig } from './commands/init-llm-config.js';
import { runMcp, type McpCommandOptions } from './commands/mcp.js';
import { replayCommand, type ReplayCommandOptions } from './commands/replay.js';
import { runCommand, type RunCommandOptions } from './commands/run.js';
import { runServe } from './commands/serve.js';
import { runSynth, type SynthCommandOptions } from './commands/synth.js';
import { CLI_VERSION } from './version.js';
import { viewCommand, type ViewCommandOptions } from './commands/view.js';
import { ConfigError } from './config/config-error.js';
import { runHttpServe, type ServeHttpOptions } from './commands/serve-http.js';

/** What each command does; tests replace them to check the parsing alone. */
export interface CommandHandlers {
  run(config: string, options: RunCommandOptions): Promise<unknown>;
  bench(name: string, options: BenchCommandOptions): Promise<unknown>;
  check(target: string, options: CheckCommandOptions): Promise<unknown>;
  replay(file: string, options: ReplayCommandOptions): Promise<unknown>;
  serve(options: ServeCommandOptions): Promise<unknown>;
  mcp(options: McpCommandOptions): Promise<unknown>;
  export(inputs: string[], options: ExportCommandOptions): Promise<unknown>;
  initLlmConfig(dir: string | undefined, options: { force?: boolean }): Promise<unknown>;
  demo(options: DemoOptions): Promise<unknown>;
  gc(options: GcCommandOptions): Promise<unknown>;
  view(run: string, options: ViewCommandOptions): Promise<unknown>;
  synth(repository: string, options: SynthCommandOptions): Promise<unknown>;
}

const defaultHandlers: CommandHandlers = {
  run: runCommand,
  bench: benchCommand,
  check: checkCommand,
  replay: replayCommand,
  serve: (options) => serveCommand(options),
  mcp: runMcp,
  export: runExport,
  initLlmConfig: runInitLlmConfig,
  demo: runDemo,
  gc: (options) => runGc(options),
  view: viewCommand,
  synth: (repository, options) => runSynth(repository, options),
};

/** `debug-gym serve`'s options: `--http` and the HTTP server's settings (which need `--http`). */
export type ServeCommandOptions = { http?: boolean } & Omit<ServeHttpOptions, 'cwd' | 'signals' | 'onListening'>;

async function serveCommand(options: ServeCommandOptions): Promise<void> {
  const { http, ...httpOptions } = options;
  if (http) return runHttpServe(httpOptions);
  const { allowPlugin, allowPluginPaths, repoRoot, allowBenchmarkOptions, ...rest } = httpOptions;
  const misplaced = Object.keys(rest).map((key) => `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`);
  if (misplaced.length > 0) throw new ConfigError(`${misplaced.join(', ')} only apply with --http (the HTTP server); plain \`debug-gym serve\` speaks JSON-RPC over stdio.`);
  return runServe(pick({ allowPlugin, allowPluginPaths, repoRoot, allowBenchmarkOptions }));
}

/** A repeatable option's values, in order. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function nonNegative(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) throw new InvalidArgumentError('must be a number of seconds ≥ 0 (0: none).');
  return number;
}

function positiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a whole number ≥ 1.');
  return number;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a number > 0.');
  return number;
}

function nonNegativeInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0) throw new InvalidArgumentError('must be a whole number ≥ 0.');
  return number;
}

function portNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > 65535) throw new InvalidArgumentError('must be a port number from 0 to 65535 (0: any free port).');
  return number;
}

const increase = (_value: string, previous: number): number => previous + 1;
const terminalOption = (): Option =>
  new Option('--terminal <type>', 'sandbox: auto (Docker, else bubblewrap, else local), local, bubblewrap, docker, or kubernetes (needs @debug-gym/terminal-kubernetes)').choices([
    'auto',
    'local',
    'bubblewrap',
    'docker',
    'kubernetes',
  ]);
const paramsOption = (): Option => new Option('-p, --params <key=value...>', 'override config keys, value read as YAML (e.g. -p base.max_steps=30 debug_agent.llm_name=human)');

/** The `debug-gym` command tree. Errors are thrown (commander's as CommanderError), never exit here. */
export function createProgram(handlers: Partial<CommandHandlers> = {}): Command {
  const commands = { ...defaultHandlers, ...handlers };
  const program = new Command('debug-gym').description('Debugging environments for LLM agents.').version(CLI_VERSION).exitOverride();

  program
    .command('run')
    .description('Run an agent from a YAML config (base: + per-agent sections) on a benchmark or on a repository (env: {path, entrypoint}).')
    .argument('<config>', 'the YAML config file')
    .option('--agent <name>', 'the config section to run (default: the only agent section)')
    .addOption(paramsOption())
    .option('-v, --verbose', 'print each step (-vv: in full)', increase, 0)
    .option('--debug', 'pause after each step until you type c and Enter (one task at a time)')
    .option('-n, --workers <n>', 'episodes at once', positiveInt)
    .option('--tasks <ids>', 'only these tasks (comma-separated)')
    .option('--force', 're-run tasks that finished in an earlier launch of the same run')
    .action(async (config: string, options: { agent?: string; params?: string[]; verbose: number; debug?: boolean; workers?: number; tasks?: string; force?: boolean }) => {
      await commands.run(config, pick(options));
    });

  program
    .command('bench')
    .description('Run an agent over a benchmark (aider, mini-nightmare, swebench): resumable, progress bar, results table and JSON.')
    .argument('<name>', 'the benchmark')
    .option('--agent <name>', 'debug_agent, rewrite_agent, debug_5_agent, or solution (replays the known fixes, no LLM)', 'debug_agent')
    .option('--llm <name>', 'model name from llm.yaml, or human')
    .option('--tasks <ids>', 'only these tasks (comma-separated)')
    .option('-n, --workers <n>', 'episodes at once', positiveInt)
    .addOption(terminalOption())
    .option('--data-path <dir>', 'a local copy of the benchmark data (no download)')
    .option('--out <dir>', 'results folder: <out>/<run id>/', 'exps')
    .option('--solutions <dir>', 'folder of known fixes for --agent solution (mini-nightmare: <task>.patch)')
    .option('--tools <names>', 'tools of the env (comma-separated; default: the agent\'s)')
    .option('--max-steps <n>', 'steps per episode', positiveInt)
    .option('--no-fresh-grading', "record each episode's own score instead of re-grading its final change in a fresh sandbox")
    .option('--run-id <id>', 'name of the run folder (default <benchmark>_<agent>[_<llm>][_<terminal>] with the parts given, e.g. mini-nightmare_solution_local); the same id resumes')
    .option('--force', 're-run tasks that finished in an earlier launch of the same run')
    .addOption(paramsOption())
    .option('-v, --verbose', 'print each step (-vv: in full)', increase, 0)
    .option('--debug', 'pause after each step until you type c and Enter (one task at a time)')
    .action(async (name: string, options: BenchCommandOptions & { verbose: number }) => {
      await commands.bench(name, pick(options));
    });

  program
    .command('check')
    .description(
      "Check every task's reward: the untouched repository fails, the known fix passes, repeated runs agree, hidden files stay unreadable, the time limit has room. Health table, JSON report; exit 1 if any task is unhealthy.",
    )
    .argument('<benchmark|config>', 'a benchmark (aider, mini-nightmare, swebench) or a run config YAML (its base: section)')
    .option('--tasks <ids>', 'only these tasks (comma-separated)')
    .option('--repeat <k>', 'runs of the untouched repository and of the known fix per task (flaky tasks flip between them)', positiveInt, 1)
    .addOption(terminalOption())
    .option('--data-path <dir>', 'a local copy of the benchmark data (no download)')
    .option('--solutions <dir>', 'folder of known fixes (mini-nightmare: <task>.patch)')
    .option('-n, --workers <n>', 'tasks checked at once (more load, slower test runs)', positiveInt)
    .option('--json <file>', 'where the JSON report goes (default <out>/check_<benchmark>_<terminal>.json)')
    .option('--markdown <file>', 'also write the report as Markdown')
    .option('--out <dir>', 'folder of the default report', 'exps')
    .option('--min-margin <x>', 'a time limit must be at least this many times the slowest run', positiveNumber, 3)
    .option('--timeout-retries <n>', 're-runs of a test run that timed out before it counts as timed out', nonNegativeInt)
    .addOption(paramsOption())
    .action(async (target: string, options: CheckCommandOptions) => {
      await commands.check(target, pick(options));
    });

  program
    .command('replay')
    .description('Re-run a recorded trajectory (same task and agent, the recorded answers in order) and compare the observations.')
    .argument('<trajectory>', 'a trajectory.json written by run or bench')
    .addOption(terminalOption())
    .option('--out <dir>', 'results folder', 'exps/replays')
    .option('--check', 'exit with status 1 when an observation or the result differs')
    .option('-v, --verbose', 'print each step (-vv: in full)', increase, 0)
    .option('--debug', 'pause after each step until you type c and Enter')
    .action(async (file: string, options: ReplayCommandOptions & { verbose: number }) => {
      await commands.replay(file, pick(options));
    });

  program
    .command('serve')
    .description('Serve the environment: JSON-RPC 2.0 over stdio (reset, step, close), or with --http many sessions over HTTP + WebSocket (OpenEnv-compatible).')
    .option('--http', 'serve many sessions over HTTP and WebSocket instead of one over stdio')
    .option('--host <host>', 'address to bind (--http; default 127.0.0.1; any other needs --token)')
    .option('--port <port>', 'port (--http; default 8000; 0: a free one, printed on stderr)', portNumber)
    .option('--token-file <file>', 'file holding the bearer token every request but GET /health must carry (--http; default $DEBUG_GYM_TOKEN)')
    .option('--token <token>', 'the token on the command line, readable by every local user: prefer $DEBUG_GYM_TOKEN or --token-file (--http)')
    .option('--max-sessions <n>', 'sessions at once (--http; default: as many default sandboxes as the host has memory and processes for, at most 64); more are answered 503 with Retry-After', positiveInt)
    .option('--memory-budget <size>', "memory all sandboxes' limits may add up to, bytes or e.g. 20g (--http; default: the host's memory less 1 GiB)")
    .option('--pids-budget <n>', "processes all sandboxes' limits may add up to (--http; default: pid_max less 4096)", positiveInt)
    .option('--allow-plugin <name>', 'a plugin path or package clients may name as a tool or benchmark (repeatable; installed plugins are always allowed by name)', collect)
    .option('--allow-plugin-paths', 'DANGEROUS: clients may name any path or package as a tool or benchmark, which the server imports on this host')
    .option('--repo-root <dir>', "repositories (path), data_path and read-only paths clients name must be inside this folder (repeatable; default: anywhere this server's user can read)", collect)
    .option('--allow-benchmark-options', 'accept benchmark_options from clients (URLs, mirrors and commits the server fetches on this host)')
    .option('--idle-ttl <seconds>', 'close sessions idle this long (--http; default 600; 0: never)', nonNegative)
    .option('--step-timeout <seconds>', 'cancel a step after this long, ending its episode (--http; default 300; 0: no limit)', nonNegative)
    .option('--max-body-bytes <n>', 'largest request body or WebSocket message (--http; default 16777216)', positiveInt)
    .option('--allow-local', 'accept resets with terminal type local (unsandboxed) on a non-loopback host (--http)')
    .addOption(new Option('--terminal <type>', 'sandbox when a reset names none (--http; default auto)').choices(['auto', 'local', 'bubblewrap', 'docker']))
    .addOption(new Option('--log-level <level>', 'JSON log lines on stderr from this level (--http; default info)').choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']))
    .action(async (options: ServeCommandOptions) => {
      await commands.serve(pick(options));
    });

  program
    .command('mcp')
    .description("Serve a repository's debugging tools (pdb with persistent breakpoints, view, rewrite, eval, ...) as an MCP server, on stdio or Streamable HTTP.")
    .option('--config <yaml>', 'a run config: its env, terminal and tools (base section, or base + --agent)')
    .option('--agent <section>', 'the config section merged over base')
    .option('--task <id>', 'with a benchmark config: the task to serve')
    .option('--path <repository>', 'the repository to debug (copied into the sandbox, never modified)')
    .option('--entrypoint <command>', 'the test command (default: python -m pytest -sq .)')
    .addOption(terminalOption())
    .option('--tools <names>', 'tools to serve, comma-separated (default: listdir, view, eval, pdb, rewrite)')
    .addOption(paramsOption())
    .option('--http', 'serve Streamable HTTP (one sandbox per session) instead of stdio')
    .option('--host <address>', 'HTTP address to listen on; anything but loopback needs a token', '127.0.0.1')
    .option('--port <n>', 'HTTP port (default: a free one, printed)', portNumber)
    .option('--token-file <file>', 'HTTP: file holding the token clients send as `Authorization: Bearer <token>` (default: $DEBUG_GYM_MCP_TOKEN)')
    .option('--token <secret>', 'HTTP: the token on the command line, readable by every local user: prefer $DEBUG_GYM_MCP_TOKEN or --token-file')
    .option('--max-sessions <n>', 'HTTP: sessions (sandboxes) at once', positiveInt)
    .action(async (options: McpCommandOptions) => {
      await commands.mcp(pick(options));
    });

  program
    .command('export')
    .description("Write trajectories in another format: the original debug-gym's trajectory.json, ATIF (Harbor's), or chat-format SFT JSONL.")
    .argument('<inputs...>', 'run folders (exps/<run id>) or trajectory files (debug-gym, ATIF or original debug-gym)')
    .addOption(new Option('--format <format>', 'original, atif or sft').choices(EXPORT_FORMATS).makeOptionMandatory())
    .option('--out <path>', 'a folder (original, atif: <out>/<task>/trajectory.json) or a .jsonl file (sft); default <run>/export/<format>')
    .option('--all', 'sft: every episode with steps, not only the resolved ones')
    .action(async (inputs: string[], options: ExportCommandOptions) => {
      await commands.export(inputs, pick(options));
    });

  program
    .command('init-llm-config')
    .description('Write a commented llm.yaml template (default ~/.config/debug_gym/llm.yaml).')
    .argument('[dir]', 'folder to write llm.yaml into')
    .option('-f, --force', 'replace an existing file')
    .action(async (dir: string | undefined, options: { force?: boolean }) => {
      await commands.initLlmConfig(dir, pick(options));
    });

  program
    .command('demo')
    .description('Watch the debug_agent fix a small shopping-cart repository (shipped with the CLI), driven by a SCRIPTED model (no LLM, no API key, no Docker).')
    .option('--session <file>', 'a scripted session JSON file')
    .addOption(terminalOption().default('local'))
    .option('--python <path>', 'Python interpreter inside the sandbox (default: $DEBUG_GYM_PYTHON or python3)')
    .action(async (options: DemoOptions) => {
      await commands.demo(pick(options));
    });

  program
    .command('gc')
    .description('Reclaim what killed or crashed debug-gym runs left behind: processes, temp dirs, cgroups, Docker containers (and Kubernetes pods with --kubernetes).')
    .option('--dry-run', 'list what would be reclaimed, change nothing')
    .option('--kubernetes', 'also delete sandbox pods whose lease ran out (needs @debug-gym/terminal-kubernetes)')
    .option('--namespace <name>', 'with --kubernetes: the namespace (default: the kubeconfig context\'s)')
    .option('--context <name>', 'with --kubernetes: the kubeconfig context (default: the current one)')
    .action(async (options: GcCommandOptions) => {
      await commands.gc(pick(options));
    });

  program
    .command('view')
    .description('Write one self-contained HTML page for a run folder (results table, filters, every step of every episode), and optionally serve it on 127.0.0.1.')
    .argument('<run>', 'a run folder: exps/<run id> (results.json and <task>/trajectory.json)')
    .option('--out <file>', 'the HTML file (default <run>/view.html, or <run>/compare-<other run id>.html with --compare)')
    .option('--compare <run>', 'another run folder of the same tasks, shown side by side')
    .option('--serve', 'also serve the page on 127.0.0.1 until Ctrl-C')
    .option('--port <n>', 'port for --serve (default: any free port)', portNumber)
    .action(async (run: string, options: ViewCommandOptions) => {
      await commands.view(run, pick(options));
    });

  program
    .command('synth')
    .description('Synthesize validated debugging tasks from a Python repository whose tests pass: bugs from generator plugins, kept when tests that passed fail and the reverse patch restores them; written as SWE-smith instances with a README table.')
    .argument('<repository>', 'a folder holding a Python project and its pytest suite (e.g. an unpacked Debian source package)')
    .requiredOption('--out <dataset>', 'the dataset folder to write (new or empty)')
    .option('--seed <n>', 'the same seed gives the same dataset', nonNegativeInt, 0)
    .option('--max <n>', 'stop once this many tasks are kept', positiveInt)
    .option('--needs-debugger', 'keep only tasks whose mutated line is in no failing test\'s traceback')
    .option('--generators <list>', 'synth plugins and operators, comma-separated: ast, ast/off-by-one, ...', 'ast')
    .option('--terminal <type>', 'sandbox the tests run in: auto, bubblewrap, docker, local', 'auto')
    .option('-n, --workers <n>', 'sandboxes validating at once', positiveInt, 2)
    .option('--max-candidates <n>', 'try at most this many candidates', positiveInt)
    .option('--name <name>', 'the repository\'s name in instance ids (default: its folder\'s)')
    .option('--check <n>', 'tasks run through debug-gym check\'s rules (SWE-smith plugin, no-op fails, gold passes) before writing; 0: none', nonNegativeInt, 5)
    .action(async (repository: string, options: SynthCommandOptions) => {
      await commands.synth(repository, pick(options));
    });
  return program;
}

/** Commander's option object without undefined values. */
function pick<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}
