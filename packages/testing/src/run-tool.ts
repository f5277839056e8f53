import { DebugGymError, validateArguments, type ToolInstance, type ToolPluginV1 } from '@debug-gym/core';
import { createToolContext, type TestContextOptions, type TestToolContext } from './create-tool-context.js';

/** Code of the error `runTool` throws when the arguments do not match the tool's `parameters`. */
export const INVALID_ARGUMENTS_CODE = 'DG_TOOL_INVALID_ARGUMENTS';

export interface RunToolOptions<Options> extends TestContextOptions {
  /** Passed to `plugin.create(options)`, as a config entry `[name, options]` would. */
  options?: Options;
  /** Run in this context (left open) instead of a fresh one (closed afterwards). */
  context?: TestToolContext;
  /** The name the call used (an alias, e.g. `edit`). Default: the plugin's name. */
  name?: string;
}

export interface ToolRun {
  /** What `run()` returned: the observation before the env normalizes and caps it. */
  output: string;
  /** What `onReset()` returned before the call, if anything. */
  resetOutput: string | null;
  /** The context the call ran in (closed unless you passed your own). */
  context: TestToolContext;
}

/**
 * Call a tool once, the way the env does: the arguments are validated against `plugin.parameters`
 * (a mismatch throws a DebugGymError with code `DG_TOOL_INVALID_ARGUMENTS` and the message the
 * model would see, and `run()` is not called), then a fresh instance gets `onReset()` and `run()`,
 * and is closed. Errors thrown by the tool reach the caller unchanged.
 */
export async function runTool<Options>(plugin: ToolPluginV1<Options>, args: unknown, runOptions: RunToolOptions<Options> = {}): Promise<ToolRun> {
  const { options, context: given, name, ...contextOptions } = runOptions;
  const check = validateArguments(name ?? plugin.name, plugin.parameters, args);
  if (!check.ok) throw new DebugGymError(INVALID_ARGUMENTS_CODE, check.message);
  const context = given ?? (await createToolContext(contextOptions));
  let instance: ToolInstance | undefined;
  try {
    instance = plugin.create(options);
    const reset = await instance.onReset?.(context);
    const output = await instance.run(check.args, context, { name: name ?? plugin.name });
    return { output, resetOutput: typeof reset === 'string' ? reset : null, context };
  } finally {
    await instance?.close?.();
    if (!given) await context.close();
  }
}
