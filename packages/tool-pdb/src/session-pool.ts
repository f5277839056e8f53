import { type Breakpoint, type ToolContext } from '@debug-gym/spec';
import { helperCommand } from './helper-command.js';
import { PdbSession } from './pdb-session.js';
import { controlLines, type PdbBreakpoint, type PdbState } from './protocol.js';

/**
 * When a second pdb process is kept waiting at its first prompt, to be swapped in on a restart:
 * `after-restart` from the first restart of an episode on (an episode that never restarts pdb never
 * pays for it), `eager` from reset on (the first restart is fast too), `off` never.
 */
export type StandbyPolicy = 'after-restart' | 'eager' | 'off';

export interface PoolOptions {
  autoList: boolean;
  persistentBreakpoints: boolean;
  warmStandby: StandbyPolicy;
}

export type StartOutcome =
  | { ok: true; session: PdbSession; text: string }
  | { ok: false; /** The process output (or why it was not started). */ output: string };

const PROGRAM_FINISHED = 'The program finished and will be restarted';

interface Standby {
  entrypoint: string;
  /** The launched process (its start-up may still be running), or why it could not be launched. */
  launched: Promise<PdbSession | string>;
}

/**
 * The pdb processes of one tool instance: the active session, a warm standby already at its first
 * prompt (so a restart after a rewrite costs one breakpoint-restore round trip), and sessions being
 * shut down in the background.
 */
export class SessionPool {
  active: PdbSession | null = null;
  private standby: Standby | null = null;
  /** Sessions started since the pool was last closed (a reset closes it). */
  private starts = 0;
  private readonly closing = new Set<Promise<void>>();

  constructor(private readonly options: PoolOptions) {}

  /**
   * Replace the active session by a fresh one for `entrypoint` and restore the breakpoints.
   * `changed` lists files rewritten since the standby may have imported them.
   */
  async start(context: ToolContext, entrypoint: string, changed: readonly string[] = []): Promise<StartOutcome> {
    this.retireActive();
    this.starts += 1;
    const opened = (await this.takeStandby(entrypoint, changed)) ?? (await this.open(context, entrypoint));
    if (typeof opened === 'string') return { ok: false, output: opened };
    if (!opened.started || opened.startupText.includes(PROGRAM_FINISHED)) {
      this.retire(opened);
      return { ok: false, output: opened.startupText };
    }
    this.active = opened;
    if (opened.launch) context.recordLaunch?.('pdb', opened.launch);
    let text = `Starting pdb session with entrypoint: ${entrypoint}\n${opened.startupText}`;
    if (this.options.persistentBreakpoints) text += await this.restore(context, opened);
    else context.breakpoints.clear();
    if (this.options.warmStandby === 'eager' || (this.options.warmStandby === 'after-restart' && this.starts > 1)) {
      this.spawnStandby(context, entrypoint);
    }
    return { ok: true, session: opened, text };
  }

  /** Start the standby for `entrypoint` unless one is already on its way. */
  private spawnStandby(context: ToolContext, entrypoint: string): void {
    if (this.standby?.entrypoint === entrypoint) return;
    this.dropStandby();
    const launched = this.launch(context, entrypoint).catch((error: unknown) => String(error));
    this.standby = { entrypoint, launched };
  }

  /** Sessions started since the last reset (the standby policy counts them). */
  get startCount(): number {
    return this.starts;
  }

  /**
   * For a forked env: a new session for `entrypoint`, sent `lines` (what the original session was sent
   * since it started, breakpoint restores included) to reach the same point. Returns a note when it
   * could not, or stopped somewhere else than `position` (a program that does not run the same way
   * twice); the session is kept either way when it runs.
   */
  async replay(context: ToolContext, entrypoint: string, lines: readonly string[], starts: number, position: string | null): Promise<string | void> {
    this.retireActive();
    this.starts = starts;
    const opened = await this.open(context, entrypoint);
    if (typeof opened === 'string' || !opened.started) {
      if (typeof opened !== 'string') this.retire(opened);
      return `pdb could not be started again in the forked env: ${typeof opened === 'string' ? opened : opened.startupText}`;
    }
    this.active = opened;
    for (const [index, line] of lines.entries()) {
      const exchange = await opened.send([line], context.settings.runTimeoutMs);
      if (!exchange.state) {
        return `pdb's replay in the forked env stopped at line ${index + 1} of ${lines.length} (\`${line}\`): ${exchange.timedOut ? 'it timed out' : 'the process exited'}.`;
      }
    }
    if (opened.state) this.syncStore(context, opened, opened.state);
    if (this.options.warmStandby === 'eager' || (this.options.warmStandby === 'after-restart' && this.starts > 1)) this.spawnStandby(context, entrypoint);
    if (opened.position !== position) return `pdb's replay in the forked env stopped at ${opened.position ?? 'no frame'}, not at ${position ?? 'no frame'} as the original (the program does not run the same way twice).`;
  }

  /** Stop the active session (in the background). */
  retireActive(): void {
    if (this.active) this.retire(this.active);
    this.active = null;
  }

  /** Stop everything and wait for it. */
  async close(): Promise<void> {
    this.starts = 0;
    this.retireActive();
    this.dropStandby();
    while (this.closing.size > 0) await Promise.all([...this.closing]);
  }

  /** Copy pdb's breakpoints into the env's store (paths as the workspace knows them). */
  syncStore(context: ToolContext, session: PdbSession, state: PdbState): void {
    context.breakpoints.replace(state.breakpoints.map((bp) => toStored(session, bp)));
  }

  private async restore(context: ToolContext, session: PdbSession): Promise<string> {
    const wanted = context.breakpoints.list();
    if (wanted.length === 0) return '';
    const items = wanted.map((bp) => ({
      file: session.toPdbPath(bp.file),
      line: bp.line,
      cond: bp.condition ?? null,
      temporary: bp.temporary === true,
      enabled: bp.enabled !== false,
    }));
    const exchange = await session.send(controlLines('restore', items), context.settings.runTimeoutMs);
    if (!exchange.state) return '\nBreakpoints could not be restored: the pdb session did not answer.';
    this.syncStore(context, session, exchange.state);
    const lost = wanted.filter((bp) => !context.breakpoints.has(bp.file, bp.line));
    const note = lost.length
      ? `\nThese breakpoints could not be restored (the line no longer holds code):\n${lost.map((bp) => `line ${bp.line} in ${bp.file}`).join('\n')}`
      : '';
    return `\nBreakpoints have been restored.${note}`;
  }

  private async takeStandby(entrypoint: string, changed: readonly string[]): Promise<PdbSession | null> {
    const standby = this.standby;
    if (!standby) return null;
    this.standby = null;
    if (standby.entrypoint !== entrypoint) {
      this.retireLater(standby);
      return null;
    }
    const session = await standby.launched;
    if (typeof session === 'string') return null;
    await session.ready;
    const stale = changed.some((path) => session.loaded.includes(session.toPdbPath(path)));
    if (!session.alive || stale) {
      this.retire(session);
      return null;
    }
    return session;
  }

  private async open(context: ToolContext, entrypoint: string): Promise<PdbSession | string> {
    const launched = await this.launch(context, entrypoint);
    if (typeof launched !== 'string') await launched.ready;
    return launched;
  }

  private async launch(context: ToolContext, entrypoint: string): Promise<PdbSession | string> {
    const built = helperCommand(entrypoint, context.settings.python, this.options.autoList);
    if (!built.ok) return built.reason;
    return PdbSession.launch(context.terminal, {
      entrypoint,
      command: built.command,
      timeoutMs: context.settings.runTimeoutMs,
      workdir: context.terminal.workdir,
      ...(built.python && context.settings.forkServer !== false ? { python: built.python } : {}),
    });
  }

  private dropStandby(): void {
    if (this.standby) this.retireLater(this.standby);
    this.standby = null;
  }

  private retireLater(standby: Standby): void {
    this.track(standby.launched.then((session) => (typeof session === 'string' ? undefined : session.close())));
  }

  private retire(session: PdbSession): void {
    this.track(session.close());
  }

  private track(closing: Promise<void>): void {
    const settled = closing.catch(() => undefined).finally(() => this.closing.delete(settled));
    this.closing.add(settled);
  }
}

function toStored(session: PdbSession, bp: PdbBreakpoint): Breakpoint {
  const stored: Breakpoint = { file: session.fromPdbPath(bp.file), line: bp.line };
  if (bp.cond) stored.condition = bp.cond;
  if (bp.temporary) stored.temporary = true;
  if (!bp.enabled) stored.enabled = false;
  return stored;
}
