import { PathNotFoundError, defineToolPlugin, type ToolPluginV1 } from '@debug-gym/core';

/** `echo {text, times?}`: a well-behaved tool. */
export const echoTool: ToolPluginV1 = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'echo',
  description: 'Repeat a text.',
  parameters: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'What to repeat.' },
      times: { type: ['integer', 'null'], description: 'How often (default 1).' },
    },
    required: ['text'],
  },
  create: () => ({
    async run(args) {
      const times = Math.max(0, Math.min(3, (args.times as number | undefined) ?? 1));
      return Array.from({ length: times }, () => args.text as string).join(' ');
    },
  }),
});

/** Reads `path` with fs-like code: a missing file escapes as a raw TypeError. */
export const careless: ToolPluginV1 = defineToolPlugin({
  specificationVersion: 'tool-plugin-v1',
  name: 'careless',
  description: 'Reads a file without going through the workspace rules.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', description: 'File.' }, lines: { type: 'integer' } },
    required: ['path'],
  },
  create: () => ({
    async run(args, context) {
      if ((args.path as string) === '') throw new PathNotFoundError('', context.workspace.workdir);
      const text = await context.workspace.readText(args.path as string).catch(() => null);
      return (text as { text: string }).text.toUpperCase();
    },
  }),
});
