import { EnvConfigError, type JsonSchemaObject, type RewriteEvent, type ToolContext, type ToolInstance } from '@debug-gym/spec';
import { CommandRunner } from './command-runner.js';
import { pdbDescription, pdbParameters } from './pdb-schema.js';
import { SessionPool, type StandbyPolicy, type StartOutcome } from './session-pool.js';

export interface PdbToolOptions {
  /** Show the `l .` listing around the current frame after every command (default true). */
  autoList?: boolean;
  /** Keep breakpoints across pdb restarts (rewrites, program end, new entrypoint). Default true. */
  persistentBreakpoints?: boolean;
  /** Use the env's debug entrypoint when the call gives none (default true); false makes `entrypoint` required. */
  setDefaultEntrypoint?: boolean;
  /**
   * Keep a second pdb process ready at its first prompt so restarts take one round trip.
   * `'after-restart'` (default): from the first restart of an episode on; `'eager'` or `true`: from
   * reset on; `'off'` or `false`: never.
   */
  warmStandby?: StandbyPolicy | boolean;
}

/** What `env.fork()` carries to the forked env's pdb tool. */
export interface PdbSnapshot {
  entrypoint: string | null;
  starts: number;
  /** The live session: its entrypoint, every line it was sent since it started, and where it stopped. */
  session: { entrypoint: string; lines: string[]; position: string | null } | null;
}

export const EMPTY_COMMAND_TEXT = 'Failure calling pdb:\nEmpty commands are not allowed.';
export const ENTRYPOINT_REQUIRED_TEXT = 'Failure calling pdb:\nAn entrypoint must be provided when using the pdb tool.';

/** One pdb tool in one env: a pdb session that follows resets, rewrites and entrypoint changes. */
export class PdbTool implements ToolInstance {
  /** Set without a default entrypoint: the model is shown `entrypoint` as required (as in the original). */
  readonly description?: string;
  readonly parameters?: JsonSchemaObject;
  private readonly pool: SessionPool;
  private readonly runner: CommandRunner;
  private readonly setDefaultEntrypoint: boolean;
  /** Entrypoint of the current session; null means the env's default. */
  private entrypoint: string | null = null;

  constructor(options: PdbToolOptions = {}) {
    const autoList = flag(options, 'autoList', 'auto_list');
    this.setDefaultEntrypoint = flag(options, 'setDefaultEntrypoint', 'set_default_entrypoint');
    if (!this.setDefaultEntrypoint) {
      this.description = pdbDescription(true);
      this.parameters = pdbParameters(true);
    }
    this.pool = new SessionPool({
      autoList,
      persistentBreakpoints: flag(options, 'persistentBreakpoints', 'persistent_breakpoints'),
      warmStandby: standbyPolicy(options),
    });
    this.runner = new CommandRunner(this.pool, autoList, (context) => this.restart(context));
  }

  async onReset(context: ToolContext): Promise<string | void> {
    await this.pool.close();
    this.entrypoint = null;
    if (!this.setDefaultEntrypoint) return;
    const outcome = await this.startWith(context, context.settings.debugEntrypoint);
    return outcome.ok ? outcome.text : `Failed to start a pdb session with entrypoint: ${context.settings.debugEntrypoint}\n${outcome.output}`;
  }

  async onRewrite(event: RewriteEvent, context: ToolContext): Promise<string | void> {
    if (this.entrypoint === null && !this.setDefaultEntrypoint) return;
    const outcome = await this.restart(context, [event.path]);
    return outcome.ok ? `Debugging terminal started:\n${outcome.text}` : `Debugging terminal failed to start:\n${outcome.output}`;
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<string> {
    const raw = typeof args.command === 'string' ? args.command : '';
    if (raw.trim() === '') return EMPTY_COMMAND_TEXT;
    const given = typeof args.entrypoint === 'string' && args.entrypoint.trim() !== '' ? args.entrypoint.trim() : null;
    if (given === null && !this.setDefaultEntrypoint) return ENTRYPOINT_REQUIRED_TEXT;

    let prefix = '';
    if (given !== null && given !== this.entrypoint) {
      // As in the original, the new session's start-up text is not part of the answer: the command's output is.
      const outcome = await this.startWith(context, given);
      if (!outcome.ok) {
        this.entrypoint = null; // the next call without an entrypoint goes back to the default
        return `Provided entrypoint failed to start a pdb session:\n${outcome.output}`;
      }
    } else if (!this.pool.active?.alive) {
      const ended = this.pool.active ? 'The previous pdb session had ended (its process exited), so a new one was started.\n' : '';
      const wanted = this.entrypoint ?? context.settings.debugEntrypoint;
      const outcome = await this.startWith(context, wanted);
      if (!outcome.ok) return `Failure calling pdb:\n${ended}Starting pdb session with entrypoint: ${wanted}\n${outcome.output}`;
      prefix = `${ended}${outcome.text}\n`;
    }
    return this.runner.run(context, raw, prefix);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }

  snapshot(): PdbSnapshot {
    const active = this.pool.active;
    return {
      entrypoint: this.entrypoint,
      starts: this.pool.startCount,
      session: active?.alive ? { entrypoint: active.entrypoint, lines: [...active.history], position: active.position } : null,
    };
  }

  async restore(snapshot: unknown, context: ToolContext): Promise<string | void> {
    const state = snapshot as PdbSnapshot;
    this.entrypoint = state.entrypoint;
    if (!state.session) return;
    return this.pool.replay(context, state.session.entrypoint, state.session.lines, state.starts, state.session.position);
  }

  /** A fresh session for the current entrypoint (after a rewrite, a crash, a hang). */
  private restart(context: ToolContext, changed: readonly string[] = []): Promise<StartOutcome> {
    return this.startWith(context, this.entrypoint ?? context.settings.debugEntrypoint, changed);
  }

  private async startWith(context: ToolContext, entrypoint: string, changed: readonly string[] = []): Promise<StartOutcome> {
    this.entrypoint = entrypoint;
    return this.pool.start(context, entrypoint, changed);
  }
}

const STANDBY_POLICIES: readonly StandbyPolicy[] = ['after-restart', 'eager', 'off'];

function standbyPolicy(options: PdbToolOptions): StandbyPolicy {
  const value = options.warmStandby ?? (options as Record<string, unknown>).warm_standby ?? 'after-restart';
  if (value === true) return 'eager';
  if (value === false) return 'off';
  if (typeof value === 'string' && (STANDBY_POLICIES as readonly string[]).includes(value)) return value as StandbyPolicy;
  throw new EnvConfigError(`pdb option warmStandby must be one of ${STANDBY_POLICIES.map((p) => `'${p}'`).join(', ')}, true or false; got ${JSON.stringify(value)}`);
}

/** A boolean option, default true; the original's snake_case names (from its YAML configs) work too. */
function flag(options: PdbToolOptions, name: keyof PdbToolOptions, snake: string): boolean {
  const value = options[name] ?? (options as Record<string, unknown>)[snake];
  return value !== false;
}
