import { defineToolPlugin, type ToolPluginV1 } from '@debug-gym/spec';
import { withToolName } from '@debug-gym/plugin-kit';
import { SyntaxChecker } from './check-python-syntax.js';
import { rewriteFile, type RewriteArguments, type RewriteOptions } from './rewrite-file.js';
import { meta } from './meta.js';

const DESCRIPTION =
  'Replace lines start..end (1-based, inclusive) of a file with new_code. With start only, that single line is replaced. ' +
  'Without start and end, the whole file is replaced, which is rarely what you want: most fixes are local. ' +
  'A file that does not exist is created with new_code. new_code must carry the right indentation (take it from the surrounding code).';

const INSTRUCTIONS = [
  DESCRIPTION,
  'Examples:',
  `rewrite(path="code/utils.py", start=10, new_code="    print('bonjour')") replaces line 10 by one line indented by 4 spaces.`,
  `rewrite(path="code/utils.py", start=10, end=20, new_code="    print('hello')\\n    print('hi again')") replaces lines 10 to 20 by two lines.`,
  `rewrite(path="code/utils.py", new_code="print('hola')") replaces the whole file.`,
  `rewrite(path="code/new_utils.py", new_code="print('hello new file')") creates a new file.`,
  'The answer shows a unified diff of the change. For a .py file that no longer compiles, a warning with the syntax error follows the diff.',
].join('\n');

/** `rewrite {path, start?, end?, new_code}`, also called `edit` (the newer name). */
export const rewriteTool: ToolPluginV1<RewriteOptions> = defineToolPlugin<RewriteOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'rewrite',
  aliases: ['edit'],
  description: DESCRIPTION,
  instructions: INSTRUCTIONS,
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file to edit or create, relative to the root of the repository.' },
      start: { type: ['number', 'null'], description: 'First line to replace (1-based). Without it the whole file is replaced.' },
      end: { type: ['number', 'null'], description: 'Last line to replace (1-based, inclusive). Default: the same as start.' },
      new_code: { type: 'string', description: 'The code that replaces the lines, with its indentation.' },
    },
    required: ['path', 'new_code'],
  },
  create: (options) => {
    const settings: RewriteOptions = { ...(options ?? {}) };
    const checker = new SyntaxChecker();
    return {
      run: (args, context, call) => rewriteFile(args as unknown as RewriteArguments, context, settings, checker, call?.name),
      onReset: async () => checker.reset(),
    };
  },
});

/** The same tool shown to the model as `edit` (the newer original's name), for configs that list `edit`. */
export const editTool: ToolPluginV1<RewriteOptions> = withToolName(rewriteTool, 'edit');
