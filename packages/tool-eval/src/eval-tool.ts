import { defineToolPlugin, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { meta } from './meta.js';

export interface EvalToolOptions {
  /**
   * Re-run the tests after every successful rewrite and report the result (the 1.0 behaviour,
   * `run_on_rewrite`). Default false: the newer rule, tests run only when the agent calls `eval`.
   */
  runOnRewrite?: boolean;
}

const DESCRIPTION = 'Evaluate the current code against pre-defined test cases.';

const INSTRUCTIONS = [
  DESCRIPTION,
  'Runs the task\'s test command in the working copy and returns its output; the score is the number of passing tests.',
  'A run that exceeds the time limit is stopped and scores 0.',
  'Examples:',
  'eval() to run the tests and see which ones fail.',
].join('\n');

/** Run the entrypoint through the env (which scores it and updates `score`) and return its output. */
export async function runEval(context: ToolContext, source = 'eval'): Promise<string> {
  const result = await context.evaluate(source);
  return result.output;
}

/** Build one eval tool instance. */
export function createEval(options: EvalToolOptions = {}): ToolInstance {
  const instance: ToolInstance = {
    run: (_args, context) => runEval(context),
  };
  if (options.runOnRewrite === true) instance.onRewrite = (_event, context) => runEval(context);
  return instance;
}

/** `eval {}`: run the tests and report the score. */
export const evalTool: ToolPluginV1<EvalToolOptions> = defineToolPlugin<EvalToolOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'eval',
  description: DESCRIPTION,
  instructions: INSTRUCTIONS,
  parameters: { type: 'object', properties: {}, required: [] },
  create: (options) => createEval(options ?? {}),
});
