import { DebugGymError, type ToolContext } from '@debug-gym/spec';
import { annotateLines, formatView, splitLines } from './format-view.js';
import { selectRange } from './select-range.js';

export interface ViewArguments {
  path: string;
  start?: number;
  end?: number;
  include_line_numbers_and_breakpoints?: boolean;
}

export interface ViewOptions {
  /** Largest file shown; a bigger one is refused before it is read. Default 4 MiB. */
  maxFileBytes?: number;
}

export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;
const NOT_FOUND = 'DG_WORKSPACE_NOT_FOUND';

/** The `view` tool: show (part of) a text file of the working copy, numbered and with breakpoint marks. */
export async function viewFile(args: ViewArguments, context: ToolContext, options: ViewOptions = {}): Promise<string> {
  const path = args.path.trim();
  if (path === '') return 'Invalid file path. Please specify a valid file path.';
  let file: { absolute: string; relative: string; text: string };
  try {
    file = await context.workspace.readText(path, { maxBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES });
  } catch (error) {
    return describeReadFailure(path, error, context.workspace.workdir);
  }
  const lines = splitLines(file.text);
  if (lines.length === 0) return `The file \`${path}\` is empty.`;
  // The schema says `number`, as the original's does; like the original, a fractional line number is cut to an integer.
  const range = selectRange(lines.length, wholeLine(args.start), wholeLine(args.end));
  if (!range.ok) return range.message;
  const selected = lines.slice(range.start - 1, range.end);
  const annotate = args.include_line_numbers_and_breakpoints !== false;
  const body = annotate ? annotateLines(selected, range.start, context.breakpoints.linesIn(file.absolute)).join('\n') : selected.join('\n');
  return formatView(
    {
      path,
      start: range.start,
      end: range.end,
      total: lines.length,
      readonly: context.workspace.isReadonly(file.relative),
      explainBreakpoints: annotate && context.breakpoints.size > 0,
    },
    body,
  );
}

function wholeLine(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.trunc(value);
}

function describeReadFailure(path: string, error: unknown, workdir: string): string {
  // A dead sandbox ends the episode: let the env see it. Errors are matched by their stable code.
  if (DebugGymError.hasCode(error, 'DG_TERMINAL_UNRECOVERABLE')) throw error;
  if (DebugGymError.hasCode(error, NOT_FOUND)) {
    return `View failed. Error message:\nFailed to read \`${path}\` because it does not exist in the working directory \`${workdir}\`.`;
  }
  if (DebugGymError.isInstance(error) && error.code.startsWith('DG_WORKSPACE_')) {
    const hint = DebugGymError.hasCode(error, 'DG_WORKSPACE_NOT_A_FILE')
      ? ' Use listdir to see what it contains.'
      : DebugGymError.hasCode(error, 'DG_WORKSPACE_TOO_LARGE')
        ? ' view shows files up to that size, even with start/end: use grep to find the lines you need.'
        : '';
    return `View failed. Error message:\n${error.message}${hint}`;
  }
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return `View failed due to an unexpected error: ${name}: ${message}`;
}
