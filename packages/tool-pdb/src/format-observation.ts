/** Text assembly for pdb observations, in the original's layout. */

export const PROGRAM_END_TEXT = 'Reached the end of the program. Restarting the debugging session.';
const PROGRAM_END_LINES = [/The program exited via sys\.exit\(\)\.[^\n]*\n?/g, /The program finished and will be restarted[^\n]*\n?/g];

/**
 * pdb restarts the program when it ends: its "exited via sys.exit()" / "finished" line becomes the
 * original's notice; what the program printed before (e.g. pytest's summary) is kept.
 */
export function markProgramEnd(output: string): string {
  let result = output;
  for (const pattern of PROGRAM_END_LINES) result = result.replace(pattern, `\n${PROGRAM_END_TEXT}\n`);
  return result;
}

/** Trailing whitespace goes, leading indentation (listing columns) stays. */
export function trimEnd(text: string): string {
  // `String.prototype.trimEnd` strips exactly `\s`, in linear time (`/\s+$/` is quadratic on inner whitespace runs).
  return text.trimEnd();
}

export interface FrameInfo {
  /** `path:line`, or null when pdb reports no frame. */
  frame: string | null;
  /** The `l .` listing (or a note why it is not shown), or null to leave the section out. */
  context: string | null;
}

/** Blank lines around the text go, the first line's indentation (listing columns, `where`) stays. */
export function trimBlankLines(text: string): string {
  return trimEnd(text.replace(/^(?:[ \t]*\n)+/, ''));
}

/** `[warning\n]body\n` then the frame and context sections. */
export function formatObservation(body: string, warning: string | null, info: FrameInfo | null): string {
  const trimmed = trimBlankLines(body);
  let text = warning ? `${warning}\n${trimmed}\n` : `${trimmed}\n`;
  if (info?.frame) text += `\nCurrent frame:\n${info.frame}\n`;
  if (info?.context) text += `\nContext around the current frame:\n${trimEnd(info.context)}\n`;
  return text;
}

/** The original's failure layout: `Invalid pdb command: <cmd>\n[warning\n]<message>`. */
export function formatInvalid(command: string, warning: string | null, message: string): string {
  return warning ? `Invalid pdb command: ${command}\n${warning}\n${message.trim()}` : `Invalid pdb command: ${command}\n${message.trim()}`;
}
