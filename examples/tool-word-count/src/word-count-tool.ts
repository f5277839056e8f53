import { defineToolPlugin, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { countText, formatCounts } from './count-text.js';
import { meta } from './meta.js';

/** Options a config can pass: `tools: [['word-count', { ... }]]`. This tool has none. */
export type WordCountOptions = Record<string, never>;

/** One instance per env; this tool keeps no state between calls. */
export function createWordCount(): ToolInstance {
  return {
    async run(args, context: ToolContext): Promise<string> {
      // Arguments were validated against `parameters` before run() is called: `path` is a string.
      const path = args.path as string;
      // Always go through the workspace: it refuses paths outside the working copy, hides
      // .debugignore'd files, and throws a WorkspaceError whose message becomes the observation.
      const file = await context.workspace.readText(path);
      return formatCounts(file.relative, countText(file.text));
    },
  };
}

/** `word_count {path}`: count the lines, words and characters of one file. */
export const wordCountTool: ToolPluginV1<WordCountOptions> = defineToolPlugin<WordCountOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'word_count',
  description: 'Count the lines, words and characters of a file in the repository.',
  instructions: [
    'Count the lines, words and characters of a file in the repository.',
    'Examples:',
    'word_count(path="src/app.py") to see how long src/app.py is before viewing it.',
  ].join('\n'),
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File to count, relative to the repository root.' },
    },
    required: ['path'],
  },
  create: () => createWordCount(),
});
