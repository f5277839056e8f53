import { defineToolPlugin, type ToolPluginV1 } from '@debug-gym/spec';
import { viewFile, type ViewArguments, type ViewOptions } from './view-file.js';
import { meta } from './meta.js';

const DESCRIPTION =
  'Show the content of a file of the repository, optionally only lines start..end (1-based, inclusive). ' +
  'By default every line is prefixed with its number, and with B when a breakpoint is set before it. ' +
  'The path is relative to the root of the repository.';

const INSTRUCTIONS = [
  DESCRIPTION,
  'Examples:',
  'view(path="main.py") shows the whole of main.py with line numbers and breakpoint marks.',
  'view(path="src/util.py", include_line_numbers_and_breakpoints=false) shows the raw text, without numbers or marks.',
  'view(path="funcs/helper.py", start=6, end=24) shows lines 6 to 24.',
  'view(path="src/main.py", start=514) shows line 514 to the end of the file.',
].join('\n');

/** `view {path, start?, end?, include_line_numbers_and_breakpoints?}`. */
export const viewTool: ToolPluginV1<ViewOptions> = defineToolPlugin<ViewOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  changesFiles: false,
  name: 'view',
  description: DESCRIPTION,
  instructions: INSTRUCTIONS,
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file to show, relative to the root of the repository.' },
      start: { type: ['number', 'null'], description: 'First line to show (1-based, inclusive). Default: the first line.' },
      end: { type: ['number', 'null'], description: 'Last line to show (1-based, inclusive). Default: the last line; larger values are clamped.' },
      include_line_numbers_and_breakpoints: {
        type: ['boolean', 'null'],
        description:
          "Prefix each line with its number and a breakpoint mark, e.g. 'B  426     x = 1' where B means a breakpoint is set before line 426. Default true.",
      },
    },
    required: ['path'],
  },
  create: (options) => ({ run: (args, context) => viewFile(args as unknown as ViewArguments, context, options ?? {}) }),
});
