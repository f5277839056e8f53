import type { EnvInfo, ToolCall } from '@debug-gym/spec';

/** What the `solution` agent needs of an env. */
export interface SolutionEnv {
  reset(): Promise<EnvInfo>;
  step(toolCall: ToolCall): Promise<EnvInfo>;
}

export interface SolutionRun {
  /** The info after the final evaluation. */
  info: EnvInfo;
  /** One info per executed call (the calls, then the final `eval`). */
  steps: EnvInfo[];
  /** Calls whose observation reported a failure (`Edit failed`, unknown tool). */
  failedCalls: { call: ToolCall; observation: string }[];
}

/**
 * The `solution` agent: reset, replay the known fix through the env's own tools, then call `eval`
 * (the env must have the `rewrite` and `eval` tools). Pass `info` when the env was reset already.
 */
export async function runSolution(env: SolutionEnv, calls: readonly ToolCall[], options: { info?: EnvInfo; evalTool?: string } = {}): Promise<SolutionRun> {
  let info = options.info ?? (await env.reset());
  const steps: EnvInfo[] = [];
  const failedCalls: SolutionRun['failedCalls'] = [];
  for (const call of calls) {
    info = await env.step(call);
    steps.push(info);
    const text = info.stepObservation.observation;
    if (info.stepObservation.source === 'env' || text.startsWith('Edit failed')) failedCalls.push({ call, observation: text });
  }
  info = await env.step({ name: options.evalTool ?? 'eval', arguments: {} });
  steps.push(info);
  return { info, steps, failedCalls };
}
