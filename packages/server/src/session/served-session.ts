import type { EnvInfo, ToolCall } from '@debug-gym/core';
import { EpisodeDoneError, SessionBusyError, SessionClosedError, StepTimeoutError } from '../errors.js';
import type { EnvFactory } from '../params/env-factory.js';
import type { ResetParams } from '../params/reset-params.js';
import { EnvSession } from './env-session.js';
import { DEFAULT_CLAIM, type SandboxClaim } from './sandbox-budget.js';

/** How long a cancelled step may take to hand its env back once the sandbox is closed. */
const SETTLE_MS = 2000;

/** What a session records about its episode for `/state`. */
export interface EpisodeLabels {
  episodeId?: string | undefined;
  seed?: number | undefined;
  /** `benchmark/task` or the repository path. */
  task?: string | undefined;
}

/**
 * One session of the HTTP/WebSocket server: an EnvSession with an id, one request at a time, the
 * time of its last request (for the idle TTL), a per-step time limit, and why it was closed.
 */
export class ServedSession {
  readonly env: EnvSession;
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  /** `reset`, `step` or `fork` while one runs. */
  running: 'reset' | 'step' | 'fork' | null = null;
  closedReason: string | null = null;
  labels: EpisodeLabels = {};
  /** What its sandbox may take from the host (memory and processes), counted against the server's budget. */
  claim: SandboxClaim = { ...DEFAULT_CLAIM };
  /** The latest request that carried a `request_id`, and its answer (a retry gets the same answer). */
  private lastRequest: { id: string; reply: Promise<unknown> } | undefined;

  constructor(
    readonly id: string,
    factory: EnvFactory,
    readonly transport: 'http' | 'ws',
  ) {
    this.env = new EnvSession(factory);
  }

  /**
   * `run` once per `requestId`: a request sent again with the id of the latest one (a client retrying
   * after a broken connection) gets that request's answer, waiting for it if it still runs, instead
   * of running twice.
   */
  once<T>(requestId: string | undefined, run: () => Promise<T>): Promise<T> {
    if (requestId === undefined) return run();
    if (this.lastRequest?.id === requestId) return this.lastRequest.reply as Promise<T>;
    const reply = run();
    this.lastRequest = { id: requestId, reply };
    reply.catch(() => undefined);
    return reply;
  }

  get idleMs(): number {
    return this.running ? 0 : Date.now() - this.lastActivity;
  }

  /** Score before the latest step, for the reward. */
  get score(): number {
    return this.env.last?.score ?? 0;
  }

  async reset(params: ResetParams | undefined, labels: EpisodeLabels): Promise<EnvInfo> {
    return this.exclusive('reset', async () => {
      const info = await this.env.reset(params);
      this.labels = labels;
      return info;
    });
  }

  /** One step, cancelled after `timeoutMs` (0: no limit) by closing the sandbox, which ends the episode. */
  async step(call: ToolCall, timeoutMs: number): Promise<EnvInfo> {
    return this.exclusive('step', async () => {
      const done = this.env.doneReason;
      if (done) throw new EpisodeDoneError(this.id, done);
      const stepping = this.env.step(call);
      if (timeoutMs <= 0) return stepping;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<'expired'>((resolve) => (timer = setTimeout(() => resolve('expired'), timeoutMs)));
      try {
        const outcome = await Promise.race([stepping, expired]);
        if (outcome !== 'expired') return outcome;
      } finally {
        clearTimeout(timer);
      }
      await this.env.abort(`a step ran longer than ${timeoutMs / 1000} s`);
      await settle(stepping);
      throw new StepTimeoutError(this.id, timeoutMs / 1000);
    });
  }

  /**
   * Make `target` (a new session) a branch of this one: its env in this env's state, the same labels.
   * Both are busy meanwhile. Returns what the fork could not reproduce.
   */
  async forkInto(target: ServedSession): Promise<readonly string[]> {
    return this.exclusive('fork', async () => {
      const done = this.env.ended;
      if (done) throw new EpisodeDoneError(this.id, done);
      return target.exclusive('fork', async () => {
        const warnings = await target.env.forkFrom(this.env);
        target.labels = { ...this.labels };
        return warnings;
      });
    });
  }

  /** Close for good: the env is closed (its running commands killed); a running request fails with SessionClosedError. */
  async close(reason: string): Promise<void> {
    this.closedReason ??= reason;
    await this.env.close({ final: true });
  }

  /** Run `task` unless another request of this session runs; failures after a close become SessionClosedError. */
  private async exclusive<T>(kind: 'reset' | 'step' | 'fork', task: () => Promise<T>): Promise<T> {
    if (this.closedReason) throw new SessionClosedError(this.id, this.closedReason);
    if (this.running) throw new SessionBusyError(this.id, this.running);
    this.running = kind;
    this.lastActivity = Date.now();
    try {
      const result = await task();
      // Closed while it ran: what the killed commands left is no answer.
      if (this.closedReason) throw new SessionClosedError(this.id, this.closedReason);
      return result;
    } catch (error) {
      if (this.closedReason && !(error instanceof SessionClosedError)) throw new SessionClosedError(this.id, this.closedReason);
      throw error;
    } finally {
      this.running = null;
      this.lastActivity = Date.now();
    }
  }
}

async function settle(pending: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pending.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_MS)))]);
  clearTimeout(timer);
}
