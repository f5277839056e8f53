import { PathNotFoundError, SessionClosedError, formatSeconds, type ToolContext } from '@debug-gym/spec';
import { formatInvalid, formatObservation, markProgramEnd, trimBlankLines, type FrameInfo } from './format-observation.js';
import { HIDDEN_FRAME_TEXT, isHiddenPath, scrubHiddenSource } from './hidden-files.js';
import {
  breakpointFile,
  commandLines,
  isBreakpointListing,
  isClearAll,
  isInvalidLineAnswer,
  isListCommand,
  isUnsupported,
  prepareCommand,
} from './parse-command.js';
import type { Exchange, PdbSession } from './pdb-session.js';
import { CONTROL_PREFIX, MAX_LINE_LENGTH, type PdbState } from './protocol.js';
import type { SessionPool, StartOutcome } from './session-pool.js';

/** How long pdb gets to come back to its prompt after Ctrl-C. */
const INTERRUPT_WAIT_MS = 3_000;

type Restart = (context: ToolContext) => Promise<StartOutcome>;

/** Where a command ended up: the session and state to describe, plus notes for the agent. */
interface Settled {
  session: PdbSession | null;
  state: PdbState | null;
  text: string;
  notes: string;
}

/** Runs one agent command on the active session and writes the observation. */
export class CommandRunner {
  constructor(
    private readonly pool: SessionPool,
    private readonly autoList: boolean,
    private readonly restart: Restart,
  ) {}

  async run(context: ToolContext, raw: string, prefix: string): Promise<string> {
    const { command, warning } = prepareCommand(raw);
    if (command === '') return 'Failure calling pdb:\nEmpty commands are not allowed.';
    if (command.length > MAX_LINE_LENGTH) {
      return formatInvalid(command.slice(0, 80) + '…', warning, `The command is too long (${command.length} characters; at most ${MAX_LINE_LENGTH}).`);
    }
    if (isUnsupported(command)) {
      return formatInvalid(command, warning, 'The `interact` command is not supported here; run Python statements directly instead (e.g. `!x = 1` or `p x`).');
    }
    const refusal = this.hiddenRefusal(context, command);
    if (refusal) return formatInvalid(command, warning, refusal);

    if (isBreakpointListing(command)) {
      const settled = await this.exchange(context, command, [`${CONTROL_PREFIX}state`]);
      return formatObservation(`${prefix}${settled.notes}Breakpoints:\n${context.breakpoints.describe()}\n`, warning, this.frameInfo(context, settled, command));
    }
    if (isClearAll(command)) {
      context.breakpoints.clear(); // first, so a restart on the way restores none
      const settled = await this.exchange(context, command, [`${CONTROL_PREFIX}clear`]);
      return formatObservation(`${prefix}${settled.notes}All breakpoints have been cleared.`, warning, this.frameInfo(context, settled, command));
    }

    const settled = await this.exchange(context, command, commandLines(command));
    const answer = settled.text.trim();
    if (settled.state && isInvalidLineAnswer(answer)) return formatInvalid(command, warning, `Invalid line number: ${answer}.`);
    const hiddenProblem = await this.dropHiddenResults(context, settled);
    if (hiddenProblem) return formatInvalid(command, warning, hiddenProblem);
    const body = `${prefix}${settled.notes}Pdb command output:\n${trimBlankLines(markProgramEnd(this.scrub(context, settled.session, settled.text)))}`;
    return formatObservation(body, warning, this.frameInfo(context, settled, command));
  }

  /** Send lines; recover from a hang (Ctrl-C, else restart) or a dead process (restart). */
  private async exchange(context: ToolContext, command: string, lines: string[]): Promise<Settled> {
    const session = this.pool.active;
    const timeoutMs = context.settings.runTimeoutMs;
    let result: Exchange;
    try {
      if (!session) throw new SessionClosedError('no pdb session');
      result = await session.send(lines, timeoutMs);
    } catch (error) {
      if (!SessionClosedError.isInstance(error)) throw error;
      return this.restartAfter(context, '', 'The pdb session had ended, so a new one was started.');
    }
    if (result.state) return this.settle(context, session, result.state, result.text, '');

    if (result.timedOut && !result.exited) {
      const seconds = formatSeconds(timeoutMs);
      const interrupted = await session.interrupt(INTERRUPT_WAIT_MS);
      const text = result.text + interrupted.text;
      if (interrupted.state) {
        const note = `The command \`${command}\` has timed out after ${seconds} seconds and was interrupted (Ctrl-C); the pdb session is still running.\n`;
        return this.settle(context, session, interrupted.state, text, note);
      }
      const note = `The command \`${command}\` has timed out after ${seconds} seconds. pdb did not respond to Ctrl-C, so the session was restarted.`;
      return this.restartAfter(context, text, note);
    }
    return this.restartAfter(context, result.text, 'The pdb process exited, so the session was restarted.');
  }

  private settle(context: ToolContext, session: PdbSession, state: PdbState, text: string, notes: string): Settled {
    this.pool.syncStore(context, session, state);
    return { session, state, text, notes };
  }

  private async restartAfter(context: ToolContext, text: string, reason: string): Promise<Settled> {
    const outcome = await this.restart(context);
    if (!outcome.ok) {
      return { session: null, state: null, text, notes: `${reason.replace(/, so .*$/, '')}; a new pdb session could not be started:\n${outcome.output}\n` };
    }
    let state = outcome.session.state;
    if (this.autoList) {
      // A fresh session reports no listing at its first prompt; ask for one.
      const listed = await outcome.session.send([`${CONTROL_PREFIX}state`], context.settings.runTimeoutMs);
      state = listed.state ?? state;
    }
    const notes = `${text.trim() ? `${text.trim()}\n` : ''}${reason}\n${outcome.text}\n`;
    return { session: outcome.session, state, text: '', notes };
  }

  /** Refuse commands that would show a hidden file's source or set a breakpoint in it. */
  private hiddenRefusal(context: ToolContext, command: string): string | null {
    const file = breakpointFile(command);
    if (file !== null && isHiddenPath(context.workspace, file)) return new PathNotFoundError(file, context.workspace.workdir).message;
    const session = this.pool.active;
    const frame = session?.state?.frame;
    if (session && frame && isListCommand(command) && isHiddenPath(context.workspace, session.fromPdbPath(frame.file))) {
      return 'The current frame is in a file hidden from this task (.debugignore); its source cannot be listed.';
    }
    return null;
  }

  /** Undo what pdb did with hidden files (a breakpoint via a function name, `source` of a hidden object). */
  private async dropHiddenResults(context: ToolContext, settled: Settled): Promise<string | null> {
    const { session, state } = settled;
    if (!session || !state) return null;
    const hidden = (file: string): boolean => isHiddenPath(context.workspace, session.fromPdbPath(file));
    if ((state.shown ?? []).some(hidden)) return 'That source is in a file hidden from this task (.debugignore).';
    const numbers = state.breakpoints.filter((bp) => hidden(bp.file)).map((bp) => bp.number);
    if (numbers.length === 0) return null;
    const cleaned = await session.send([`${CONTROL_PREFIX}delete ${numbers.join(' ')}`], context.settings.runTimeoutMs);
    if (cleaned.state) this.pool.syncStore(context, session, cleaned.state);
    return 'Breakpoints cannot be set in files hidden from this task (.debugignore).';
  }

  private scrub(context: ToolContext, session: PdbSession | null, text: string): string {
    if (!session) return text;
    return scrubHiddenSource(text, (file) => isHiddenPath(context.workspace, session.fromPdbPath(file)));
  }

  private frameInfo(context: ToolContext, settled: Settled, command: string): FrameInfo | null {
    const { session, state } = settled;
    if (!session?.alive || !state?.frame) return null;
    const file = session.fromPdbPath(state.frame.file);
    const frame = `${file}:${state.frame.line}`;
    if (!this.autoList || isListCommand(command)) return { frame, context: null };
    if (isHiddenPath(context.workspace, file)) return { frame, context: HIDDEN_FRAME_TEXT };
    return { frame, context: state.listing ?? null };
  }
}
