import {
  DebugGymError,
  EnvConfigError,
  EnvNotReadyError,
  UnrecoverableTerminalError,
  WorkspaceError,
  type EmitOptions,
  type EnvEvent,
  type EnvInfo,
  type EnvSettings,
  type EnvState,
  type EvalProcedure,
  type EvalResult,
  type HiddenToolsChange,
  type LaunchInfo,
  type Observation,
  type ProcessLaunch,
  type PythonLaunch,
  type RawRun,
  type RewriteEvent,
  type Scorer,
  type Terminal,
  type TerminationReason,
  type ToolCall,
  type ToolContext,
  type ToolSchema,
} from '@debug-gym/spec';

import { defaultDebugEntrypoint, formatTree, normalizeEntrypoint, pytestScorer, splitShellWords, truncateMiddle, validateArguments } from '@debug-gym/plugin-kit';
import { normalizeOutput } from '../text/index.js';
import { Workspace } from '../workspace/index.js';
import { BreakpointStore } from './breakpoints.js';
import { checkRepositoryPath } from './repository-path.js';
import { applyPatch, type PatchApplyResult } from '../bench/apply-patch.js';
import { pytestArguments } from '../scoring/pytest-entrypoint.js';
import { PytestScoringGuard } from '../scoring/pytest-scoring-guard.js';
import { ToolRegistry, type RegisteredTool, type ToolSpec } from './tool-registry.js';

export interface RepoEnvOptions {
  /** The repository on the host. It is copied into the sandbox; the original is never modified. */
  path: string;
  /** The sandbox (see @debug-gym/terminal). */
  terminal: Terminal;
  /** Tools by name (`'pdb'` → @debug-gym/tool-pdb), package, path or plugin object, optionally with options. */
  tools?: readonly ToolSpec[];
  /** Test command. Default `python -m pytest -sq .` (a leading `python` means the terminal's interpreter). */
  entrypoint?: string;
  /** Command the debugger runs. Default: the entrypoint under `python -m pdb`. */
  debugEntrypoint?: string;
  /** Seconds one command may run (eval, pdb command, bash). Default 60. */
  runTimeout?: number;
  /** Observations are cut in the middle beyond this many characters. Default 40 000. */
  maxOutputChars?: number;
  /** The task statement. */
  instructions?: string;
  /**
   * Extra hidden / read-only paths (gitignore syntax), on top of the repository's `.debugignore` /
   * `.debugreadonly`. Test artefacts (`__pycache__/`, `*.pyc`, `.pytest_cache/`) are always hidden.
   */
  ignorePatterns?: readonly string[];
  readonlyPatterns?: readonly string[];
  /** Shell commands run in the working copy after it is copied in (failures are reported, not fatal). */
  setupCommands?: readonly string[];
  /** Scoring rule (default: pytest counts). */
  scorer?: Scorer;
  /** Fixed max score instead of the one the scorer reports. */
  maxScore?: number;
  /** Runs each evaluation instead of the plain entrypoint (SWE-bench: hidden test patch applied, then reverted). */
  evaluation?: EvalProcedure;
  /** The task's reference fix (unified diff), for `applyGoldPatch()`. */
  goldPatch?: string;
  /** End the episode once resolved (the 1.0 rule). False gives the newer rule: only `submit` ends it. Default true. */
  terminateOnResolved?: boolean;
  /**
   * Score a pytest entrypoint from debug-gym's report plugin, with the protected files restored and
   * the agent's configuration files set aside (see the README's "Scoring"). Default true; false
   * gives the parsed-output scoring, which code under test can forge.
   */
  guardedScoring?: boolean;
  /** Run the entrypoint during reset. Default true. */
  evalOnReset?: boolean;
  /**
   * Start a fork server in the sandbox at reset (when the terminal has one and the entrypoint runs
   * pytest), so test runs and pdb starts fork a warm interpreter instead of importing pytest again.
   * Same output, exit code and score as the cold command; `info.launches` says which path ran.
   * Default true; false runs every command cold.
   */
  forkServer?: boolean;
  /**
   * With the fork server: keep a child forked ahead for each kind of run (the scoring run, a pdb
   * start, the syntax check), set up and with the pages it writes already copied, so the run starts
   * sooner. Same output and score either way. Default true; false saves about 20 MB a standby.
   */
  forkStandbys?: boolean;
  /** Depth of `info.dirTree`. Default 1. */
  dirTreeDepth?: number;
  /** `info.dirTree` lists at most this many entries (the rest is summarized in one line). Default 200. */
  dirTreeMaxEntries?: number;
  /** `reset` refuses a repository with more files and folders than this. Default 200 000. */
  maxRepositoryEntries?: number;
  /** Where tool names are resolved from (a config file's folder). Default cwd. */
  pluginsFrom?: string;
}

/**
 * Produced by running the tests (Python, pytest and its common plugins: pytest-benchmark,
 * hypothesis, pytest-cov), not part of the task: hidden from every tool.
 */
export const TEST_ARTEFACTS: readonly string[] = ['__pycache__/', '*.pyc', '.pytest_cache/', '.benchmarks/', '.hypothesis/', '.coverage', '.coverage.*'];
/** The original's answer to a step whose model produced no tool call (its `empty_tool_response` signal). */
export const EMPTY_TOOL_RESPONSE = 'empty_tool_response';
export const NO_TOOL_CALL_TEXT =
  'No tool call was generated by the agent. This may be due to the reasoning being too long and exceeding the context length. Make sure to keep the reasoning concise.';
const DEFAULT_ENTRYPOINT = 'python -m pytest -sq .';
const DEFAULT_DIR_TREE_MAX_ENTRIES = 200;
/** `info.dirTree` stays small whatever the names: it rides along with every step. */
const DIR_TREE_MAX_CHARS = 16 * 1024;
const DEFAULT_INSTRUCTIONS =
  "The program doesn't behave as intended. Investigate the repository, figure out the root cause, then edit the code to fix the issue.";

/** A Gymnasium-style environment over a Python repository: `reset()`, `step(toolCall)`, `close()`. */
export class RepoEnv implements AsyncDisposable {
  readonly terminal: Terminal;
  readonly workspace: Workspace;
  readonly breakpoints = new BreakpointStore();
  readonly settings: EnvSettings;
  private readonly options: RepoEnvOptions;
  private registry: ToolRegistry | undefined;
  private readonly state: EnvState = { stepCount: 0, rewriteCount: 0, lastEval: null, score: 0, maxScore: null };
  private terminationReason: TerminationReason | null = null;
  /** Announced events whose hooks have not run yet; `early` ones may run during the call that emitted them. */
  private readonly queue: Array<{ event: EnvEvent; early: boolean }> = [];
  /** The drain of `queue` under way (an early `emit` starts one during the call). */
  private draining: Promise<void> | null = null;
  private hookObservations: Observation[] = [];
  private ready = false;
  /** `info.dirTree`, kept while only tools that never change files run. */
  private cachedDirTree: string | null = null;
  private readonly context: ToolContext;
  /** Null when the entrypoint is not a pytest run (or guarded scoring is off): scored from its output. */
  private readonly scoringGuard: PytestScoringGuard | null;
  /** The next evaluation is reset's, on the pristine working copy. */
  private pristineEval = false;
  /** Names of the tools the agent cannot see (`setHiddenTools`): they neither run nor speak. */
  private hiddenNames: ReadonlySet<string> = new Set();
  private readonly isShown = (tool: RegisteredTool): boolean => !this.isHidden(tool);
  /** The plain entrypoint as a python launch the fork server may start (null: not a plain pytest run). */
  private readonly entrypointLaunch: PythonLaunch | null;
  /** Processes started during the current step. */
  private launches: ProcessLaunch[] = [];
  /** Set on a forked env: what could not be reproduced. */
  private forkNotes: string[] = [];

  constructor(options: RepoEnvOptions) {
    if (!options.path) throw new EnvConfigError('RepoEnv needs `path`: the repository to debug.');
    if (!options.terminal) throw new EnvConfigError('RepoEnv needs `terminal`: a sandbox from @debug-gym/terminal (e.g. createTerminal({ type: "auto" })).');
    this.options = options;
    this.terminal = options.terminal;
    const python = options.terminal.python;
    const entrypoint = normalizeEntrypoint(options.entrypoint ?? DEFAULT_ENTRYPOINT, python);
    this.settings = {
      entrypoint,
      debugEntrypoint: options.debugEntrypoint ? normalizeEntrypoint(options.debugEntrypoint, python) : defaultDebugEntrypoint(entrypoint, python),
      python,
      runTimeoutMs: (options.runTimeout ?? 60) * 1000,
      maxOutputChars: options.maxOutputChars ?? 40_000,
      forkServer: options.forkServer !== false,
    };
    this.workspace = new Workspace(this.terminal, {
      ignorePatterns: [...TEST_ARTEFACTS, ...(options.ignorePatterns ?? [])],
      ...(options.readonlyPatterns ? { readonlyPatterns: options.readonlyPatterns } : {}),
    });
    this.context = this.createContext();
    const pytestArgs = options.evaluation || options.guardedScoring === false ? null : pytestArguments(entrypoint, python);
    this.scoringGuard = pytestArgs === null ? null : new PytestScoringGuard(options.path, pytestArgs, this.settings.forkServer);
    const plainArgs = options.evaluation ? null : pytestArguments(entrypoint, python);
    const words = plainArgs === null ? null : splitShellWords(plainArgs);
    this.entrypointLaunch = words && this.settings.forkServer ? { args: ['-m', 'pytest', ...words], uses: ['pytest'] } : null;
  }

  /** Names of the tools the agent can call, in registration order (after the first reset). */
  get toolNames(): string[] {
    return this.registry?.names(this.isShown) ?? [];
  }

  /** The task statement plus the usage notes of the tools the agent can call. */
  get instructions(): string {
    const task = this.options.instructions ?? DEFAULT_INSTRUCTIONS;
    const tools = this.registry?.instructions(this.isShown) ?? '';
    return tools ? `${task}\n\n## Tools\n\n${tools}` : task;
  }

  /** Function-calling schemas of the tools the agent can call (after the first reset). */
  get toolSchemas(): ToolSchema[] {
    return this.registry?.schemas(this.isShown) ?? [];
  }

  /**
   * Hide tools from the agent (by name or alias), e.g. pdb for `rewrite_agent`, or until
   * `debug_5_agent` has rewritten enough. A hidden tool is left out of `info.tools` and the
   * instructions, a call to it is answered as an unknown tool, and its hooks do not run: pdb starts
   * no session and does not restart after rewrites, so nothing it would say reaches an observation.
   * Set it before `reset()`; mid-episode, a newly hidden tool is closed and a newly shown one starts
   * as at a reset (its `onReset`), whose notes are returned (the original discarded them).
   * The set replaces the previous one and holds across resets.
   */
  async setHiddenTools(names: Iterable<string>): Promise<HiddenToolsChange> {
    const before = new Set((this.registry?.all ?? []).filter((tool) => this.isHidden(tool)));
    this.hiddenNames = new Set([...names].map((name) => name.trim()));
    const observations: Observation[] = [];
    if (this.ready) {
      for (const tool of this.registry?.all ?? []) {
        const hidden = this.isHidden(tool);
        if (hidden && !before.has(tool)) await tool.instance.close?.().catch(() => undefined);
        if (!hidden && before.has(tool)) observations.push(...(await this.runHooks((one) => (one === tool ? one.instance.onReset?.(this.context) : undefined))));
      }
    }
    return { tools: this.toolSchemas, instructions: this.instructions, observations };
  }

  /** Fresh working copy, fresh sandbox, tools reset (pdb starts), one test run. */
  async reset(): Promise<EnvInfo> {
    // Before anything is torn down or started: a bad path leaves the running episode as it was.
    await checkRepositoryPath(this.options.path, this.options.maxRepositoryEntries);
    this.registry ??= await ToolRegistry.load(this.options.tools ?? [], this.options.pluginsFrom);
    await this.closeTools();
    this.ready = false;
    await this.terminal.start();
    this.startForkServer();
    await this.terminal.copyIn(this.options.path, this.terminal.workdir);
    this.workspace.invalidate();
    this.cachedDirTree = null;
    await this.workspace.loadRules();
    this.scoringGuard?.reset((relative) => this.workspace.isReadonly(relative));
    Object.assign(this.state, { stepCount: 0, rewriteCount: 0, lastEval: null, score: 0, maxScore: this.options.maxScore ?? null });
    this.terminationReason = null;
    this.breakpoints.clear();
    this.queue.length = 0;
    this.hookObservations = [];
    this.launches = [];
    this.ready = true;
    const setup = await this.runSetupCommands();
    this.pristineEval = this.options.evalOnReset !== false;
    // The first test run and the tools' start-up (pdb) are independent: run them side by side.
    const [, toolObservations] = await Promise.all([
      this.options.evalOnReset === false ? undefined : this.context.evaluate('env'),
      this.runHooks((tool) => tool.instance.onReset?.(this.context)),
    ]);
    await this.drainQueue();
    const evalObservations = this.state.lastEval ? [{ source: 'eval', observation: this.state.lastEval.output }] : [];
    const all = [...setup, ...evalObservations, ...toolObservations, ...this.takeHookObservations()];
    return this.buildInfo({ source: 'env', observation: this.instructions }, all, null);
  }

  /** Execute one tool call. Never throws for a bad call: the problem comes back as the observation. */
  async step(toolCall: ToolCall): Promise<EnvInfo> {
    if (!this.ready) throw new EnvNotReadyError('step() was called before reset() (or after close())');
    this.state.stepCount += 1;
    this.hookObservations = [];
    this.launches = [];
    if (this.registry?.get(toolNameOf(toolCall))?.plugin.changesFiles !== false) this.cachedDirTree = null;
    const observation = await this.execute(toolCall);
    await this.drainQueue();
    const extra = this.takeHookObservations();
    const stepEvent = { type: 'step' as const, toolCall, observation };
    extra.push(...(await this.runHooks((tool) => tool.instance.onStep?.(stepEvent, this.context))));
    // Notes from hooks (e.g. "pdb restarted after the rewrite") are part of what the agent sees this step.
    const visible = extra.length
      ? {
          source: observation.source,
          observation: [observation.observation, ...extra.map((item) => item.observation)].join('\n\n'),
          ...(observation.raw === undefined ? {} : { raw: [observation.raw, ...extra.map((item) => item.observation)].join('\n\n') }),
        }
      : observation;
    return this.buildInfo(visible, extra, toolCall);
  }

  /** Run the entrypoint now (what the `eval` tool does). */
  async evaluate(): Promise<EvalResult> {
    if (!this.ready) throw new EnvNotReadyError('evaluate() was called before reset()');
    return this.context.evaluate('env');
  }

  /**
   * Apply the task's gold patch to the working copy (to validate a benchmark's harness: gold patch,
   * then `evaluate()` must resolve). Tools hear of every changed file as a whole-file rewrite.
   */
  async applyGoldPatch(): Promise<PatchApplyResult> {
    if (!this.ready) throw new EnvNotReadyError('applyGoldPatch() was called before reset()');
    if (this.options.goldPatch === undefined) throw new EnvConfigError('This env has no gold patch (RepoEnvOptions.goldPatch).');
    const result = await applyPatch(this.terminal, this.options.goldPatch, { timeoutMs: this.settings.runTimeoutMs });
    this.workspace.invalidate();
    this.cachedDirTree = null;
    if (!result.applied) return result;
    for (const file of result.files) {
      const path = posixJoin(this.terminal.workdir, file);
      this.queue.push({ event: { type: 'rewrite', source: 'env', path, relativePath: file, start: null, end: null, newLineCount: 0, created: false }, early: false });
    }
    await this.drainQueue();
    return result;
  }

  /**
   * An independent env in this env's state, to branch an episode (tree search, best-of-n): a new
   * sandbox of the same kind whose working copy is a copy of this one's (copy-on-write where the
   * file system allows), the same breakpoints, step and rewrite counters, score and last eval, and
   * each tool's state (pdb: a new session brought to the same point by replaying the lines the
   * current one was sent since it started). From then on the two envs share nothing: edits,
   * breakpoints, steps and `close()` of one never reach the other. Call it between steps, not while
   * one runs. Limits: see the README ("Forking an episode").
   */
  async fork(): Promise<RepoEnv> {
    if (!this.ready) throw new EnvNotReadyError('fork() was called before reset() (or after close())');
    if (!this.terminal.fork) throw new EnvConfigError(`The ${this.terminal.kind} terminal cannot fork: it has no fork() (the local, bubblewrap and Docker terminals do).`);
    const terminal = await this.terminal.fork();
    const clone = new RepoEnv({ ...this.options, terminal });
    try {
      await clone.adopt(this);
    } catch (error) {
      await clone.close().catch(() => undefined);
      throw error;
    }
    return clone;
  }

  /** Become a copy of `original` (this env's terminal already holds a copy of its working copy). */
  private async adopt(original: RepoEnv): Promise<void> {
    this.registry = (original.registry as ToolRegistry).fresh();
    this.hiddenNames = original.hiddenNames;
    this.startForkServer();
    this.workspace.invalidate();
    this.workspace.adoptRules(original.workspace);
    this.pristineEval = original.pristineEval;
    if (this.scoringGuard && original.scoringGuard) this.scoringGuard.copyFrom(original.scoringGuard);
    Object.assign(this.state, { ...original.state });
    this.terminationReason = original.terminationReason;
    this.breakpoints.replace(original.breakpoints.list());
    this.ready = true;
    const notes: string[] = [];
    const originals = original.registry?.all ?? [];
    for (const [index, tool] of (this.registry?.all ?? []).entries()) {
      const snapshot = originals[index]?.instance.snapshot?.();
      if (snapshot === undefined || !tool.instance.restore || this.isHidden(tool)) continue;
      const note = await tool.instance.restore(snapshot, this.context);
      if (typeof note === 'string' && note) notes.push(note);
    }
    this.forkNotes = notes;
  }

  /** What `fork()` could not reproduce (e.g. a replayed pdb session that stopped elsewhere); empty when everything was. */
  get forkWarnings(): readonly string[] {
    return this.forkNotes;
  }

  /** Close every tool session and the sandbox. Idempotent. */
  async close(): Promise<void> {
    this.ready = false;
    await this.closeTools();
    await this.terminal.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async execute(toolCall: ToolCall): Promise<Observation> {
    const name = toolNameOf(toolCall);
    if (!name) return env('The tool call has no tool name. Call one of the available tools: ' + this.toolNames.join(', ') + '.');
    if (name === EMPTY_TOOL_RESPONSE) return env(NO_TOOL_CALL_TEXT);
    const tool = this.registry?.get(name);
    if (!tool || this.isHidden(tool)) return env(`Tool '${name}' not found among available tools: ${this.toolNames.join(', ')}.`);
    // The answer carries the name the caller used: a call to `edit` is answered by `edit`, not `rewrite`.
    const source = name;
    const check = validateArguments(source, tool.plugin.parameters, toolCall.arguments);
    if (!check.ok) return { source, observation: check.message };
    try {
      return this.observe(source, await tool.instance.run(check.args, this.context, { name }));
    } catch (error) {
      return { source, observation: this.present(this.describeFailure(source, error)) };
    }
  }

  private describeFailure(source: string, error: unknown): string {
    if (UnrecoverableTerminalError.isInstance(error)) {
      this.terminationReason = 'fatal_error';
      return `Fatal terminal error detected: the sandbox is no longer available, so the episode ends here.\n${error.message}`;
    }
    if (WorkspaceError.isInstance(error)) return error.message;
    if (DebugGymError.isInstance(error)) return `${source} failed: ${error.message}`;
    return `Error while using tool ${source}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
  }

  private present(text: string): string {
    return truncateMiddle(normalizeOutput(text), this.settings.maxOutputChars);
  }

  /** A tool's output as the agent sees it; the text before normalization rides along (for trajectories) when it differs. */
  private observe(source: string, text: string): Observation {
    const observation = this.present(text);
    const raw = truncateMiddle(text, this.settings.maxOutputChars);
    return raw === observation ? { source, observation } : { source, observation, raw };
  }

  /**
   * Run the queued events' hooks, one event at a time, and return once none is left: all of them, or
   * with `earlyOnly` those up to the first event announced without `early` (its hooks wait for the
   * end of the call). A call while a drain runs joins it first.
   */
  private async drainQueue(earlyOnly = false): Promise<void> {
    while (this.draining || this.runnable(earlyOnly)) {
      this.draining ??= this.runQueue(earlyOnly).finally(() => {
        this.draining = null;
      });
      await this.draining;
    }
  }

  private runnable(earlyOnly: boolean): boolean {
    const next = this.queue[0];
    return next !== undefined && (!earlyOnly || next.early);
  }

  private async runQueue(earlyOnly: boolean): Promise<void> {
    while (this.runnable(earlyOnly)) {
      const { event } = this.queue.shift() as { event: EnvEvent };
      if (event.type !== 'rewrite') continue;
      this.state.rewriteCount += 1;
      this.breakpoints.shift(event.path, event.start, event.end, event.newLineCount);
      this.hookObservations.push(...(await this.runHooks((tool) => tool.instance.onRewrite?.(event, this.context))));
    }
  }

  private async runHooks(call: (tool: RegisteredTool) => Promise<string | void> | undefined): Promise<Observation[]> {
    const observations: Observation[] = [];
    for (const tool of this.registry?.all ?? []) {
      if (this.isHidden(tool)) continue;
      try {
        const text = await call(tool);
        if (typeof text === 'string' && text.length > 0) observations.push({ source: tool.plugin.name, observation: this.present(text) });
      } catch (error) {
        observations.push({ source: tool.plugin.name, observation: this.present(this.describeFailure(tool.plugin.name, error)) });
      }
    }
    return observations;
  }

  private isHidden(tool: RegisteredTool): boolean {
    if (this.hiddenNames.size === 0) return false;
    for (const name of this.hiddenNames) if (this.registry?.get(name) === tool) return true;
    return false;
  }

  private takeHookObservations(): Observation[] {
    const taken = this.hookObservations;
    this.hookObservations = [];
    return taken;
  }

  private async runSetupCommands(): Promise<Observation[]> {
    const observations: Observation[] = [];
    for (const command of this.options.setupCommands ?? []) {
      const result = await this.terminal.run(command, { timeoutMs: this.settings.runTimeoutMs });
      if (result.exitCode !== 0) {
        observations.push(env(`Setup command failed (exit ${result.exitCode ?? 'killed'}): ${command}\n${result.output}`));
      }
    }
    return observations;
  }

  /** One test run: through the scoring guard for a pytest entrypoint, else the procedure or the plain entrypoint. */
  /**
   * In the background: the terminal's fork server, when the entrypoint or the debug entrypoint runs
   * pytest (the groups every pytest run and pdb start import). Commands sent meanwhile wait for it.
   */
  private startForkServer(): void {
    if (!this.settings.forkServer || !this.terminal.startForkServer) return;
    const runsPytest = this.scoringGuard !== null || this.entrypointLaunch !== null || / -m pytest(\s|$)/.test(this.settings.debugEntrypoint);
    if (runsPytest) {
      const standbys = this.options.forkStandbys !== false;
      void this.terminal.startForkServer({ preload: ['pytest', 'pdb'], standbys }).catch(() => undefined);
    }
  }

  private recordLaunch(source: string, launch: LaunchInfo | undefined): void {
    if (launch) this.launches.push({ source, ...launch });
  }

  private async runEvaluation(): Promise<RawRun> {
    const timeoutMs = this.settings.runTimeoutMs;
    const { entrypoint } = this.settings;
    const pristine = this.pristineEval;
    this.pristineEval = false;
    // Nothing the agent left running (a thread in its pdb session, a background loop) may change
    // the working copy while the protected files are restored and the tests run.
    const paused = pristine ? undefined : await this.terminal.pauseProcesses?.();
    try {
      return await this.scoringRun(pristine, timeoutMs, entrypoint);
    } finally {
      await paused?.resume();
    }
  }

  private async scoringRun(pristine: boolean, timeoutMs: number, entrypoint: string): Promise<RawRun> {
    if (this.scoringGuard) {
      const { run, structured } = await this.scoringGuard.run(this.terminal, timeoutMs, pristine);
      return { ...run, output: stripNewlines(run.output), timeoutMs, structured };
    }
    const run = this.options.evaluation
      ? await this.options.evaluation({ terminal: this.terminal, entrypoint, timeoutMs })
      : await this.terminal.run(entrypoint, { timeoutMs, ...(this.entrypointLaunch ? { python: this.entrypointLaunch } : {}) });
    return { ...run, output: stripNewlines(run.output), timeoutMs };
  }

  private async closeTools(): Promise<void> {
    // Hooks an early emit started (in a step whose caller did not wait for it) finish first.
    await this.draining?.catch(() => undefined);
    await Promise.all((this.registry?.all ?? []).map((tool) => tool.instance.close?.().catch(() => undefined)));
  }

  private createContext(): ToolContext {
    return {
      workspace: this.workspace,
      terminal: this.terminal,
      breakpoints: this.breakpoints,
      settings: this.settings,
      state: this.state,
      evaluate: async (source) => {
        const run = await this.runEvaluation();
        const scorer = this.options.scorer ?? pytestScorer;
        const scored = scorer(run);
        const result: EvalResult = { ...scored, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs, ...(run.launch ? { launch: run.launch } : {}) };
        this.recordLaunch(source, run.launch);
        this.state.lastEval = result;
        this.state.score = result.score;
        if (this.options.maxScore === undefined && result.maxScore !== null) this.state.maxScore = result.maxScore;
        const event = { type: 'eval' as const, source, result };
        this.hookObservations.push(...(await this.runHooks((tool) => tool.instance.onEval?.(event, this.context))));
        return result;
      },
      emit: (event: RewriteEvent, options?: EmitOptions) => {
        const early = options?.early === true;
        this.queue.push({ event, early });
        // The step's own drain, after the call, waits for this one. (A hook's failure is an observation: a drain does not fail.)
        if (early) this.drainQueue(true).catch(() => undefined);
      },
      terminate: (reason: string) => {
        if (reason === 'submitted' || reason === 'submit') this.terminationReason = 'submitted';
        else this.terminationReason ??= 'submitted';
      },
      recordLaunch: (source, launch) => this.recordLaunch(source, launch),
    };
  }

  private async buildInfo(stepObservation: Observation, extra: Observation[], toolCall: ToolCall | null): Promise<EnvInfo> {
    const lastEval = this.state.lastEval;
    const maxScore = this.state.maxScore;
    const resolved = lastEval !== null && !lastEval.timedOut && maxScore !== null && maxScore > 0 && this.state.score >= maxScore;
    if (resolved && this.options.terminateOnResolved !== false && this.terminationReason === null) this.terminationReason = 'resolved';
    return {
      stepObservation,
      allObservations: [stepObservation, ...extra],
      evalObservation: lastEval ? { source: 'env', observation: lastEval.output } : null,
      lastEval,
      dirTree: await this.dirTree(),
      currentBreakpoints: this.breakpoints.describe(),
      breakpoints: this.breakpoints.list(),
      instructions: this.instructions,
      tools: this.toolSchemas,
      actionToolCall: toolCall,
      score: this.state.score,
      maxScore,
      evalTimedOut: lastEval?.timedOut ?? false,
      resolved,
      terminated: this.terminationReason !== null,
      terminationReason: this.terminationReason,
      rewriteCount: this.state.rewriteCount,
      stepCount: this.state.stepCount,
      workdir: this.terminal.workdir,
      launches: [...this.launches],
    };
  }

  private async dirTree(): Promise<string> {
    if (this.cachedDirTree !== null) return this.cachedDirTree;
    try {
      const maxEntries = this.options.dirTreeMaxEntries ?? DEFAULT_DIR_TREE_MAX_ENTRIES;
      const { root, entries, omitted } = await this.workspace.listTree('.', this.options.dirTreeDepth ?? 1, { maxEntries });
      this.cachedDirTree = formatTree(root.absolute, entries, { omitted, maxChars: DIR_TREE_MAX_CHARS });
    } catch (error) {
      // A dead sandbox ends the episode through the step itself; here the failure is kept like a tree,
      // so it is not retried on every step until a tool changes files.
      this.cachedDirTree = `(directory tree unavailable: ${(error as Error).message})`;
    }
    return this.cachedDirTree;
  }
}

/** Line breaks around a run's output go, as the original's terminal strips them. */
function stripNewlines(output: string): string {
  // A scan, not `/[\r\n]+$/`: the output is the code under test's, and that pattern is quadratic on newline runs.
  const isBreak = (code: number): boolean => code === 0x0a || code === 0x0d;
  let start = 0;
  let end = output.length;
  while (start < end && isBreak(output.charCodeAt(start))) start += 1;
  while (end > start && isBreak(output.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === output.length ? output : output.slice(start, end);
}

function posixJoin(root: string, relative: string): string {
  let end = root.length;
  while (end > 0 && root.charCodeAt(end - 1) === 0x2f) end -= 1;
  return `${root.slice(0, end)}/${relative}`;
}

function toolNameOf(toolCall: ToolCall | null | undefined): string {
  return typeof toolCall?.name === 'string' ? toolCall.name.trim() : '';
}

function env(observation: string): Observation {
  return { source: 'env', observation };
}
