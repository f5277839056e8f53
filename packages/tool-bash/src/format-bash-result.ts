import { formatSeconds, type RunResult } from '@debug-gym/spec';
import { truncationMarker } from '@debug-gym/plugin-kit';
import { MAX_TIMEOUT_SECONDS } from './bash-options.js';

export const NO_OUTPUT_TEXT = 'Command executed successfully (no output)';

/** The text without the newlines that start and end it (a scan: `/\n+$/` is quadratic on newline runs). */
function trimNewlines(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 0x0a) start += 1;
  while (end > start && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return text.slice(start, end);
}

/** Output without the surrounding blank lines (the original's `strip_output`), plus a note when bytes were dropped. */
function cleanOutput(result: RunResult): string {
  let output = trimNewlines(result.output);
  if (result.droppedBytes > 0 && !output.includes('output truncated')) output += truncationMarker(result.droppedBytes);
  return output;
}

/** The observation for one finished, failed or timed-out command. */
export function formatBashResult(result: RunResult, timeoutMs: number): string {
  const output = cleanOutput(result);
  if (result.timedOut) {
    return (
      `Command timed out after ${formatSeconds(timeoutMs)} seconds` +
      (output.trim() ? `\nPartial output:\n${output}` : '') +
      `\n\nThe command and every process it started were killed; the sandbox is ready for the next command. ` +
      `For a long-running command pass a larger \`timeout\` (up to ${MAX_TIMEOUT_SECONDS} seconds).`
    );
  }
  if (result.exitCode === 0) return output.trim() ? output : NO_OUTPUT_TEXT;
  const status = result.exitCode === null ? 'killed by a signal' : `exit code ${result.exitCode}`;
  return `Command failed with output:\n${output.trim() ? output : '(no output)'}\n[${status}]`;
}
