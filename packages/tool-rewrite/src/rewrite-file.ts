import { DebugGymError, type ToolContext } from '@debug-gym/spec';
import { SyntaxChecker } from './check-python-syntax.js';
import { unifiedDiff } from './format-diff.js';
import { applyLineEdit, matchLineEndings, splitNewCode } from './line-edit.js';

export interface RewriteArguments {
  path: string;
  start?: number;
  end?: number;
  new_code: string;
}

export interface RewriteOptions {
  /** Compile `.py` files after the edit and warn about a syntax error. Default true. */
  checkSyntax?: boolean;
  /** Largest file edited; a bigger one is refused before it is read. Default 4 MiB. */
  maxFileBytes?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

/** The original's failure text. */
export function editFailed(message: string): string {
  return `Edit failed. Error message:\n${message}\n`;
}

/**
 * The `rewrite` (alias `edit`) tool: replace lines `start..end` of a file with `new_code`, or the
 * whole file when `start` is missing; a missing file is created. Reports a unified diff.
 */
export async function rewriteFile(
  args: RewriteArguments,
  context: ToolContext,
  options: RewriteOptions = {},
  checker: SyntaxChecker = new SyntaxChecker(),
  toolName = 'rewrite',
): Promise<string> {
  const path = args.path.trim();
  if (path === '') return editFailed('Invalid file path. Please specify a valid file path.');
  const { workspace } = context;
  let before = '';
  let exists: boolean;
  try {
    exists = (await workspace.checkWritable(path)).exists;
    if (exists) before = (await workspace.readText(path, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES })).text;
  } catch (error) {
    return editFailed(describeError(error, toolName));
  }

  let after: string;
  let span: { start: number; end: number } | null = null;
  if (exists && args.start !== undefined) {
    const start = args.start;
    const end = args.end || start; // the original's `end or start`: a missing or 0 end means one line
    // The schema says `number`, as the original's does; a line number must still be a whole one.
    const fractional = [['start', start], ['end', end]].find(([, value]) => !Number.isInteger(value));
    if (fractional) return editFailed(`Invalid line number \`${fractional[0]}=${fractional[1]}\`, line numbers are whole numbers.`);
    if (start > end) return editFailed('Invalid line number range, start should be less than or equal to end.');
    if (start <= 0 || end <= 0) return editFailed('Invalid line number, line numbers are 1-based.');
    const edit = applyLineEdit(before, start, end, args.new_code);
    after = edit.content;
    span = { start: edit.start, end: edit.end };
  } else {
    // No line numbers, or a new file: the whole file becomes `new_code` (start/end are ignored).
    after = exists ? matchLineEndings(args.new_code, before) : args.new_code;
  }

  let written: { absolute: string; relative: string };
  try {
    written = await workspace.writeText(path, after);
  } catch (error) {
    return editFailed(describeError(error, toolName));
  }
  // Early: pdb restarts while the syntax check below runs (this call does not touch the file again).
  context.emit(
    {
      type: 'rewrite',
      source: 'rewrite',
      path: written.absolute,
      relativePath: written.relative,
      start: span?.start ?? null,
      end: span?.end ?? null,
      newLineCount: splitNewCode(args.new_code).length,
      created: !exists,
    },
    { early: true },
  );

  const message = `The file \`${path}\` has been updated successfully.\n\nDiff:\n\n${unifiedDiff(before, after)}`;
  if (options.checkSyntax === false || !written.relative.endsWith('.py')) return message;
  const problem = await checker.check(context.terminal, context.settings.python, after, written.relative, context.settings.forkServer);
  if (problem === null) return message;
  return `${message}${message.endsWith('\n') ? '' : '\n'}\nWarning: \`${path}\` is not valid Python now. The edit was applied anyway; fix it with another ${toolName}.\n${problem}\n`;
}

function describeError(error: unknown, toolName: string): string {
  // A dead sandbox ends the episode: let the env see it. Errors are matched by their stable code.
  if (DebugGymError.hasCode(error, 'DG_TERMINAL_UNRECOVERABLE')) throw error;
  if (DebugGymError.hasCode(error, 'DG_WORKSPACE_TOO_LARGE')) {
    return `${(error as Error).message} ${toolName} only edits files up to that size.`;
  }
  return error instanceof Error ? error.message : String(error);
}
