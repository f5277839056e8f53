import { defineToolPlugin, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { meta } from './meta.js';

export interface SubmitToolOptions {
  /** Run the tests once more and report them in the observation (`eval_on_submit`). Default true. */
  evalOnSubmit?: boolean;
}

export const TERMINATED_TEXT = 'The agent terminated the session.';

const DESCRIPTION = 'Submit your changes once the task is complete. This ends the session: no further tool calls are possible.';

const INSTRUCTIONS = [
  DESCRIPTION,
  'The tests run one last time and their output is returned; the episode ends either way.',
  'Examples:',
  'submit() to submit the current state of the repository.',
  'submit(message="Fixed the off-by-one error in parse_range.") to submit with a short summary of the fix.',
].join('\n');

/** `"Agent message: <m>\n\n"` when a non-blank message was given, else nothing. */
export function formatAgentMessage(message: unknown): string {
  return typeof message === 'string' && message.trim() !== '' ? `Agent message: ${message}\n\n` : '';
}

/** Build one submit tool instance. */
export function createSubmit(options: SubmitToolOptions = {}): ToolInstance {
  const evalOnSubmit = options.evalOnSubmit ?? true;
  return {
    async run(args, context: ToolContext): Promise<string> {
      try {
        const body = evalOnSubmit ? (await context.evaluate('submit')).output : TERMINATED_TEXT;
        return formatAgentMessage(args.message) + body;
      } finally {
        // The agent asked to stop: the episode ends even if the final test run failed to start.
        context.terminate('submitted');
      }
    },
  };
}

/** `submit {message?}`: end the episode, reporting a final test run. */
export const submitTool: ToolPluginV1<SubmitToolOptions> = defineToolPlugin<SubmitToolOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'submit',
  description: DESCRIPTION,
  instructions: INSTRUCTIONS,
  parameters: {
    type: 'object',
    properties: {
      message: {
        type: ['string', 'null'],
        description: 'Optional short note for the reviewer: what was wrong and what you changed.',
      },
    },
    required: [],
  },
  create: (options) => createSubmit(options ?? {}),
});
