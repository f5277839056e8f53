import type { EnvInfo } from '@debug-gym/core';

/**
 * EnvInfo's camelCase names (the TypeScript API, the stdio JSON-RPC wire) and the original
 * debug-gym's snake_case names (the HTTP and WebSocket wire). The one place the mapping lives: the
 * converter, the /schema endpoint and the README table read it.
 */
export const WIRE_FIELDS = [
  ['stepObservation', 'step_observation', "the called tool's output `{source, observation}` (on reset: the instructions, source `env`)"],
  ['allObservations', 'all_observations', '`step_observation` first, then what tools added through hooks (pdb restart, eval at reset)'],
  ['evalObservation', 'eval_observation', 'the latest test run\'s output `{source: "env", observation}`, or null'],
  ['lastEval', 'last_eval', 'the latest test run, structured: `output, exit_code, timed_out, duration_ms, score, max_score, success, details`'],
  ['dirTree', 'dir_tree', 'the visible files of the working copy (listdir format)'],
  ['currentBreakpoints', 'current_breakpoints', '`No breakpoints are set.` or `line N in <path>` lines'],
  ['breakpoints', 'breakpoints', 'the same breakpoints, structured `{file, line, condition?, temporary?, enabled?}`'],
  ['instructions', 'instructions', 'the task statement plus every tool\'s usage notes'],
  ['tools', 'tools', 'function-calling schemas of the loaded tools'],
  ['actionToolCall', 'action_tool_call', 'the call this step ran `{id, name, arguments}` (null on reset)'],
  ['score', 'score', 'tests passed in the latest run'],
  ['maxScore', 'max_score', 'tests collected (null until a run told)'],
  ['evalTimedOut', 'eval_timed_out', 'the latest test run hit its time limit: no verdict on the code (`score`/`max_score` keep the last known maximum)'],
  ['resolved', 'resolved', 'every test passes'],
  ['terminated', 'terminated', 'the episode is over (resolved, submitted, or the sandbox died)'],
  ['terminationReason', 'termination_reason', '`resolved`, `submitted`, `fatal_error` or null'],
  ['rewriteCount', 'rewrite_counter', "successful rewrites so far (1.0's name)"],
  ['stepCount', 'step_count', 'steps taken since reset'],
  ['workdir', 'workdir', 'absolute path of the working copy inside the sandbox'],
  ['launches', 'launches', 'the Python processes this step started that the fork server could take `{source, via, reason?, standby?}`: `via` is `fork-server` or `cold` (with why); `standby` when the fork server had forked the child ahead'],
] as const satisfies ReadonlyArray<readonly [keyof EnvInfo, string, string]>;

export type InfoField = (typeof WIRE_FIELDS)[number][0];
export type WireField = (typeof WIRE_FIELDS)[number][1];

/** `done` on the wire: the 1.0 name of `terminated`, sent beside it. */
export const DONE_FIELD = 'done';

export const WIRE_NAME: Readonly<Record<InfoField, WireField>> = Object.fromEntries(WIRE_FIELDS.map(([camel, snake]) => [camel, snake])) as Record<InfoField, WireField>;

/** camelCase → snake_case by either name (`dir_tree` or `dirTree`); undefined for an unknown name. */
export function infoFieldOf(name: string): InfoField | undefined {
  for (const [camel, snake] of WIRE_FIELDS) if (name === camel || name === snake) return camel;
  return name === DONE_FIELD ? 'terminated' : undefined;
}
