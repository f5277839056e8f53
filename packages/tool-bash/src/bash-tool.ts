import { UnrecoverableTerminalError, defineToolPlugin, type ToolContext, type ToolInstance, type ToolPluginV1 } from '@debug-gym/spec';
import { DEFAULT_TIMEOUT_SECONDS, clampTimeout, resolveAllowLocal, type BashToolOptions } from './bash-options.js';
import { formatBashResult } from './format-bash-result.js';
import { meta } from './meta.js';

const DESCRIPTION =
  'Run a command in a bash shell inside the working directory of the repository. ' +
  'Common Linux tools and the task\'s Python environment are available. ' +
  'Each call starts a fresh shell: state does NOT persist between calls (`cd`, `export`, shell variables, aliases and functions are lost), ' +
  'so chain dependent commands in one call with `&&`. Changes to files do persist. ' +
  'This is a plain shell: the hidden (.debugignore) and read-only (.debugreadonly) rules the other tools enforce do not apply to it. ' +
  'The default time limit is 30 seconds (`timeout`, at most 3600).';

const EXAMPLES = [
  'bash(command="ls -la") to list all files and directories with detailed information.',
  'bash(command="grep -rn \'function_name\' .") to search for \'function_name\' in all files recursively.',
  'bash(command="find . -name \'*.py\' | head -10") to find Python files in the current directory.',
  'bash(command="sed -n 10,25p path/to/file") to show lines 10 to 25 of a file at relative path.',
  'bash(command="cd src && python -c \'import app\'") to run something from a subdirectory (the `cd` only lasts for this call).',
  'bash(command="pip list", timeout=120) to show installed Python packages, allowing up to 2 minutes.',
];

export const LOCAL_REFUSED_TEXT =
  'Error: bash is disabled on the local terminal, which runs commands directly on the host without a sandbox ' +
  '(allowLocal: false / ALLOW_LOCAL_TERMINAL=false). Use the bubblewrap or docker terminal, or enable allowLocal.';

/** Build one bash tool instance. */
export function createBash(options: BashToolOptions = {}): ToolInstance {
  const allowLocal = resolveAllowLocal(options.allowLocal);
  const defaultTimeout = clampTimeout(options.defaultTimeout, DEFAULT_TIMEOUT_SECONDS);
  return {
    async run(args, context: ToolContext): Promise<string> {
      const command = typeof args.command === 'string' ? args.command : '';
      if (command.trim() === '') return 'Command cannot be empty. Pass the shell command to run, e.g. bash(command="ls -la").';
      if (!allowLocal && context.terminal.kind === 'local') return LOCAL_REFUSED_TEXT;
      const timeoutMs = Math.round(clampTimeout(args.timeout, defaultTimeout) * 1000);
      try {
        const result = await context.terminal.run(command, { timeoutMs });
        return formatBashResult(result, timeoutMs);
      } catch (error) {
        if (UnrecoverableTerminalError.isInstance(error)) throw error;
        return `Error executing command: ${error instanceof Error ? error.message : String(error)}`;
      }
    },
  };
}

/**
 * `bash {command, timeout?}`: one shell command in a fresh shell. Note for config authors: bash can
 * read and write every file, including ones hidden or protected by `.debugignore` / `.debugreadonly`;
 * tasks that rely on hiding files should not enable it.
 */
export const bashTool: ToolPluginV1<BashToolOptions> = defineToolPlugin<BashToolOptions>({
  specificationVersion: 'tool-plugin-v1',
  meta,
  name: 'bash',
  description: DESCRIPTION,
  instructions: `${DESCRIPTION}\nExamples:\n${EXAMPLES.join('\n')}`,
  parameters: {
    type: 'object',
    properties: {
      command: {
        type: 'string',
        description: 'The bash command to execute, run in the repository\'s working directory in a fresh shell.',
      },
      timeout: {
        type: ['integer', 'null'],
        description: 'Time limit in seconds (default 30, clamped to 1–3600). The command and its children are killed when it runs out.',
      },
    },
    required: ['command'],
  },
  create: (options) => createBash(options ?? {}),
});
