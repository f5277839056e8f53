import type { Breakpoint } from '../context/breakpoints.js';
import type { ToolSchema } from '../tool/tool-plugin-v1.js';
import type { EvalResult } from './eval-result.js';
import type { LaunchInfo } from '../terminal/index.js';
import type { Observation, ToolCall } from './types.js';

/** One process started during a step (a test run, a pdb session) and how: forked or cold. */
export interface ProcessLaunch extends LaunchInfo {
  /** Who started it: `eval`, `env` (the test run at reset), `pdb`, ... */
  source: string;
}

export type TerminationReason = 'resolved' | 'submitted' | 'fatal_error';

/** What `reset()` and every `step()` return. Plain JSON: it is what `debug-gym serve` sends over the wire. */
export interface EnvInfo {
  /** The called tool's output (on reset: the task instructions, source `env`). */
  stepObservation: Observation;
  /** `stepObservation` first, then what tools added through hooks during this step (pdb restart, eval at reset). */
  allObservations: Observation[];
  /** Output of the latest test run, or null if none ran yet. */
  evalObservation: Observation | null;
  /** Structured result of the latest test run (counts, timing), or null. */
  lastEval: EvalResult | null;
  /** The visible files of the working copy (listdir format, `dirTreeDepth` levels). */
  dirTree: string;
  /** `No breakpoints are set.` or `line N in <path>` lines, sorted by path then line. */
  currentBreakpoints: string;
  /** The same breakpoints, structured. */
  breakpoints: Breakpoint[];
  /** Task statement plus every tool's usage notes, ready for a system prompt. */
  instructions: string;
  /** Function-calling schemas of the loaded tools, ready for an LLM API. */
  tools: ToolSchema[];
  /** The call this step executed (null on reset). */
  actionToolCall: ToolCall | null;
  /** Tests passed in the latest run. */
  score: number;
  /** Tests collected (null until a run told). */
  maxScore: number | null;
  /**
   * The latest test run hit its time limit: its score says nothing about the code (the tests did not
   * fail, they did not finish). `score`/`maxScore` keep the last known maximum.
   */
  evalTimedOut: boolean;
  /** Every test passes. */
  resolved: boolean;
  /** The episode is over: resolved (when `terminateOnResolved`), submitted, or the sandbox died. */
  terminated: boolean;
  terminationReason: TerminationReason | null;
  /** Successful rewrites so far. */
  rewriteCount: number;
  /** Steps taken since reset. */
  stepCount: number;
  /** Absolute path of the working copy inside the sandbox. */
  workdir: string;
  /** Python processes started during this step (or reset) that the fork server could take, and which path ran. */
  launches: ProcessLaunch[];
}
