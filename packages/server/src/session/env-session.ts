import { isDeepStrictEqual } from 'node:util';
import { EnvNotReadyError, type EnvInfo, type RepoEnv, type ToolCall } from '@debug-gym/core';
import type { EnvFactory } from '../params/env-factory.js';
import type { ResetParams } from '../params/reset-params.js';
import { LeanReplies, type ReplyOptions } from '../wire/lean-replies.js';

/**
 * One env behind a transport (the stdio server holds one; the HTTP server one per session): the
 * reset rule (same params → the same env again, other params → a new env), the episode's end, and
 * what its client has already seen for lean replies.
 */
export class EnvSession {
  private env: RepoEnv | undefined;
  private params: ResetParams | undefined;
  private finished = false;
  private readonly replies = new LeanReplies();
  /** The latest info, null before the first reset. */
  last: EnvInfo | null = null;
  /** Why the episode ended outside the env (a step that timed out), until the next reset. */
  ended: string | null = null;

  constructor(private readonly factory: EnvFactory) {}

  /** True between a successful reset and the end of the env. */
  get ready(): boolean {
    return this.env !== undefined && this.last !== null && this.ended === null;
  }

  /** An env was built (it may not have been reset successfully). */
  get hasEnv(): boolean {
    return this.env !== undefined;
  }

  /** A reset without params can run: params were given before (the env may have been closed since by `abort`). */
  get canResetAgain(): boolean {
    return this.params !== undefined;
  }

  /** The sandbox's kind once an env exists (`local`, `bubblewrap`, `docker`). */
  get backend(): string | undefined {
    return this.env?.terminal.kind;
  }

  /** Why a step cannot run now, or null: the episode is over. */
  get doneReason(): string | null {
    if (this.ended) return this.ended;
    return this.last?.terminated ? (this.last.terminationReason ?? 'terminated') : null;
  }

  /**
   * A new episode. `params` undefined: the same env again (the current params). Params equal to the
   * current ones reuse the env; others build a new env first, then close the old one.
   */
  async reset(params?: ResetParams): Promise<EnvInfo> {
    this.assertOpen();
    const wanted = params ?? this.params;
    if (!wanted) throw new EnvNotReadyError('reset without params before any env was built');
    if (!this.env || !isDeepStrictEqual(wanted, this.params)) {
      // Building checks the repository path and the task first: a bad reset leaves the running env as it was.
      const next = await this.factory(wanted);
      await this.closeEnv();
      this.env = next;
      this.params = wanted;
    }
    this.ended = null;
    this.last = null;
    const env = this.env;
    const info = await env.reset();
    // Closed while the sandbox was starting: the start may have finished after the close.
    if (this.finished || this.env !== env) {
      await env.close();
      this.assertOpen();
    }
    this.last = info;
    return info;
  }

  async step(call: ToolCall): Promise<EnvInfo> {
    this.assertOpen();
    const env = this.env;
    if (!env) throw new EnvNotReadyError('step() was called before reset()');
    const info = await env.step(call);
    // A step that outlived its env (aborted, then a new reset) must not overwrite the new episode's info.
    if (this.env === env) this.last = info;
    return info;
  }

  /**
   * Become a branch of `source` (`RepoEnv.fork()`): an independent env in the same state, with its
   * params (a reset without params resets the branch) and its latest info. Returns what the fork
   * could not reproduce. Run it between the source's requests, never while one runs.
   */
  async forkFrom(source: EnvSession): Promise<readonly string[]> {
    this.assertOpen();
    const original = source.env;
    if (!original || !source.last || source.ended !== null) throw new EnvNotReadyError('fork() was called before reset() (or after the episode was ended from outside)');
    const env = await original.fork();
    // Closed while the sandbox was copied: the copy is nobody's.
    if (this.finished) {
      await env.close();
      this.assertOpen();
    }
    await this.closeEnv();
    this.env = env;
    this.params = source.params;
    this.last = source.last;
    this.ended = null;
    return env.forkWarnings;
  }

  /** What to send for `info`: all of it, or with `reply: 'lean'` the part the client does not hold yet. */
  reply(info: EnvInfo, options: ReplyOptions = {}): Partial<EnvInfo> {
    return this.replies.select(info, options);
  }

  /**
   * End the episode from outside (a step that ran too long): the env is closed, which kills its
   * running commands; the next reset builds a new one from the same params.
   */
  async abort(reason: string): Promise<void> {
    this.ended = reason;
    await this.closeEnv();
  }

  /** Close the env; `final`: for good, later calls fail (shutdown, a closed HTTP session). */
  async close(options: { final?: boolean } = {}): Promise<void> {
    if (options.final) this.finished = true;
    this.last = null;
    this.params = undefined;
    await this.closeEnv();
  }

  private async closeEnv(): Promise<void> {
    const closing = this.env;
    this.env = undefined;
    await closing?.close();
  }

  private assertOpen(): void {
    if (this.finished) throw new SessionFinishedError();
  }
}

/** The session was closed for good while a request ran or before it started. */
export class SessionFinishedError extends Error {
  constructor() {
    super('The session is closed.');
    this.name = 'SessionFinishedError';
  }
}
