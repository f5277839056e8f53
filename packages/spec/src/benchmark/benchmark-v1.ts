import type { PluginMeta } from '../plugin/plugin-meta.js';
import type { EvalProcedure, Scorer } from '../wire/eval-result.js';
import type { ToolCall } from '../wire/types.js';

/** Where a task runs when the Docker terminal is used (the field names are DockerTerminalOptions'). */
export interface BenchmarkDockerSettings {
  /** Image to run (SWE-bench: the instance's prebuilt evaluation image). Default: the terminal's default image. */
  image?: string;
  /** Working copy inside the container. Default: the terminal's (`/workspace`). SWE-bench: `/testbed`. */
  workdir?: string;
  /** Interpreter inside the container. */
  python?: string;
  /** Extra environment for every command (e.g. a conda env on PATH). */
  env?: Record<string, string>;
  /** The task only works in this image: other terminal kinds must be refused. */
  required?: boolean;
  /** Recipe of an image the CLI may build on demand when `image` is missing (Dockerfile text). */
  dockerfile?: string;
}

/**
 * One task of a benchmark: everything needed to build a RepoEnv (see `taskEnvOptions`). Plain data
 * plus optional functions (`scorer`, `evaluation`), so it is not meant to be serialized whole.
 */
export interface BenchmarkTask {
  /** Unique within its benchmark (e.g. `two_fer`, `django__django-11099`). */
  id: string;
  /** The benchmark's name (`aider`, `mini-nightmare`, `swebench`). */
  benchmark: string;
  /**
   * Host folder copied into the sandbox's working copy. For tasks whose repository is already in the
   * image (SWE-bench), an empty folder.
   */
  path: string;
  /** The task statement shown to the agent. */
  instructions: string;
  /** Test command (a leading `python` means the terminal's interpreter). */
  entrypoint: string;
  debugEntrypoint?: string;
  /** Hidden paths (gitignore syntax), on top of the repository's `.debugignore`. */
  ignorePatterns?: string[];
  /** Read-only paths (gitignore syntax), on top of the repository's `.debugreadonly`. */
  readonlyPatterns?: string[];
  /** Shell commands run in the working copy after it is copied in. */
  setupCommands?: string[];
  /** Seconds one command may run. */
  runTimeout?: number;
  /** Scoring rule (default: pytest counts). */
  scorer?: Scorer;
  /** Fixed max score (SWE-bench: the number of FAIL_TO_PASS tests). */
  maxScore?: number;
  /** Replaces the plain entrypoint run (SWE-bench: apply the hidden test patch, run, revert). */
  evaluation?: EvalProcedure;
  /** The reference fix as a unified diff (`env.applyGoldPatch()`), when the dataset has one. */
  goldPatch?: string;
  docker?: BenchmarkDockerSettings;
  /** The tests reach the internet (an unresolved run without network is "needs network", not a failure). */
  needsNetwork?: boolean;
  /** The tests may pass or fail from run to run (e.g. a race condition): report, do not hide. */
  flaky?: boolean;
  /** Why the task is flaky / needs the network, for reports. */
  notes?: string[];
  /** Benchmark-specific facts (SWE-bench: repo, base_commit, FAIL_TO_PASS, ...). JSON-safe. */
  metadata?: Record<string, unknown>;
}

export interface LoadProgress {
  /** `download`, `extract`, `clone`, `read`, ... */
  phase: string;
  message: string;
  done?: number;
  total?: number;
}

export interface LoadTasksOptions {
  /** A local copy of the data instead of the default source (no download). */
  dataPath?: string;
  /** Where downloads are kept. Default `$DEBUG_GYM_CACHE_DIR` or `~/.cache/debug-gym`. */
  cacheDir?: string;
  /** Only these task ids, in this order. An unknown id is an error naming the known ones. */
  tasks?: readonly string[];
  /** Allow network downloads into the cache (default true). False: only the cache / dataPath. */
  download?: boolean;
  /** Benchmark-specific choices (SWE-bench: `{ dataset: 'lite' | 'verified' }`). */
  options?: Record<string, unknown>;
  onProgress?: (progress: LoadProgress) => void;
  signal?: AbortSignal;
}

/** What `loadTasks` returns: the tasks plus what the caller must tell the user about the data. */
export interface BenchmarkDataset {
  benchmark: string;
  /** Where the data came from (a folder, file, URL or `git URL@commit`). */
  source: string;
  tasks: BenchmarkTask[];
  /**
   * False when the data is partial (e.g. exercises missing): a score over these tasks is not the
   * benchmark's score, and reports must say so.
   */
  complete: boolean;
  /** Problems with the data that did not stop loading (missing exercise, skipped instance). Show them. */
  warnings: string[];
  /** Tasks the full benchmark has (when known). */
  expectedCount?: number;
}

/**
 * Something a benchmark keeps from the agent (a reference solution, hidden tests, `.meta`), for
 * `debug-gym check`: the agent must never see `marker` in an observation.
 */
export interface TaskSecret {
  /** What it is, for reports (`reference solution .meta/example.py`). */
  label: string;
  /** A line only the secret contains (see `distinctiveLine`). */
  marker: string;
  /** Where it is on the host, outside the working copy. */
  hostPath?: string;
  /** Where it is inside the working copy (hidden from the tools by the task's ignore patterns). */
  workspacePath?: string;
  /**
   * How far the promise goes. `tools`: listdir, view, grep and rewrite never show it (code the agent
   * runs may). `sandbox`: it never enters the sandbox, so not even bash or pdb can read it — on the
   * sandboxed terminals (bubblewrap, Docker); the local terminal has no boundary.
   */
  promise: 'tools' | 'sandbox';
}

export interface SolutionOptions {
  /** Folder of known fixes, for benchmarks whose data has none (mini-nightmare: `<task>.patch`). */
  solutionsDir?: string;
}

/** A benchmark: turns a dataset into tasks. Versioned like tool plugins. */
export interface BenchmarkV1 {
  readonly specificationVersion: 'benchmark-v1';
  /**
   * The package and version this benchmark ships in, and the spec version it was written against.
   * Required for benchmarks loaded by name (checked against the package's `"debug-gym"` manifest).
   */
  readonly meta?: PluginMeta;
  /** Kebab-case name used on the command line (`pnpm bench <name>`). */
  readonly name: string;
  readonly description: string;
  /** Tool names the original's config for this benchmark uses (a default for `--tools`). */
  readonly defaultTools?: readonly string[];
  loadTasks(options?: LoadTasksOptions): Promise<BenchmarkDataset>;
  /**
   * The known fix as tool calls on the env's own tools (`rewrite`), or null when this task has none.
   * The `solution` agent replays them, then evaluates.
   */
  solution?(task: BenchmarkTask, options?: SolutionOptions): Promise<ToolCall[] | null>;
  /** What this task keeps from the agent, for `debug-gym check` (none when absent). */
  secrets?(task: BenchmarkTask, options?: SolutionOptions): Promise<TaskSecret[]>;
}
