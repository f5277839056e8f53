import type { LaunchInfo, Terminal } from '../terminal/index.js';
import type { EvalResult } from '../wire/eval-result.js';
import type { RewriteEvent } from '../wire/events.js';
import type { ToolBreakpoints } from './breakpoints.js';
import type { ToolWorkspace } from './workspace.js';

/** Fixed facts about the env a tool may need. */
export interface EnvSettings {
  /** Test command, already pointed at the configured interpreter. */
  entrypoint: string;
  /** Command the debugger runs (default: the entrypoint under `python -m pdb`). */
  debugEntrypoint: string;
  /** Interpreter inside the sandbox. */
  python: string;
  /** Time limit for one command (eval run, pdb command, bash call), in milliseconds. */
  runTimeoutMs: number;
  /** Observations longer than this are cut in the middle. */
  maxOutputChars: number;
  /** Python processes may be forked by the terminal's fork server (`RepoEnvOptions.forkServer`). */
  forkServer: boolean;
}

/** Live counters and results of the episode. */
export interface EnvState {
  stepCount: number;
  rewriteCount: number;
  lastEval: EvalResult | null;
  score: number;
  maxScore: number | null;
}

/**
 * Hints for `emit`. A host may ignore them (one from before they existed does): no contract version
 * depends on them.
 */
export interface EmitOptions {
  /** Start the other tools' `onRewrite` hooks now instead of after the call (e.g. pdb restarting while the rewrite checks its syntax). */
  early?: boolean;
}

/** What the env hands a tool on every call and hook: its only way to touch the episode. */
export interface ToolContext {
  readonly workspace: ToolWorkspace;
  readonly terminal: Terminal;
  readonly breakpoints: ToolBreakpoints;
  readonly settings: EnvSettings;
  readonly state: Readonly<EnvState>;
  /** Run the entrypoint, update the score and notify `onEval` hooks. */
  evaluate(source: string): Promise<EvalResult>;
  /**
   * Announce a file change; other tools' `onRewrite` hooks run after the current call, or with
   * `{ early: true }` right away, alongside the rest of the call (which then must not change the
   * announced file again). Hooks keep the events' order: an early event announced after one without
   * `early` waits with it for the end of the call. The step waits for all of them either way.
   */
  emit(event: RewriteEvent, options?: EmitOptions): void;
  /** End the episode (the `submit` tool). */
  terminate(reason: string): void;
  /** Tell the env how a process a tool started was launched (it shows in `info.launches`). */
  recordLaunch?(source: string, launch: LaunchInfo): void;
}
