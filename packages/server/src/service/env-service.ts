import type { EnvInfo } from '@debug-gym/core';
import * as z from 'zod';
import { ServerError } from '../errors.js';
import type { ServerMetrics } from '../metrics.js';
import { parseRequest, resetRequestSchema, splitReset, toToolCall } from '../params/requests.js';
import type { ResetParams } from '../params/reset-params.js';
import { DEFAULT_CLAIM, type SandboxClaim } from '../session/sandbox-budget.js';
import type { ServedSession } from '../session/served-session.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { replyOptionsSchema, replyOptionsShape, type ReplyOptions } from '../wire/lean-replies.js';
import { toWire } from '../wire/to-wire.js';
import { actionSchema } from '../wire/wire-schema.js';
import { readResetBody } from './reset-body.js';

/** What `/reset`, `/step` and the WebSocket's `observation` messages carry (OpenEnv's shape, plus `session_id` and `info`). */
export interface EnvReply {
  session_id: string;
  /** The env info, snake_case (all of it, or with `reply: 'lean'` what changed). */
  observation: Record<string, unknown>;
  /** Score gained by this step (null on reset). */
  reward: number | null;
  /** The episode is over. */
  done: boolean;
  info: {
    score: number;
    max_score: number | null;
    resolved: boolean;
    terminated: boolean;
    /** Ended for a reason outside the task: the sandbox died. */
    truncated: boolean;
    termination_reason: string | null;
    step_count: number;
    /** Time spent inside the env, in milliseconds (the rest of the latency is transport). */
    env_ms: number;
  };
}

export interface SessionState {
  session_id: string;
  episode_id: string | null;
  step_count: number;
  seed: number | null;
  task: string | null;
  backend: string | null;
  score: number | null;
  max_score: number | null;
  resolved: boolean;
  done: boolean;
  termination_reason: string | null;
  running: 'reset' | 'step' | 'fork' | null;
  created_at: number;
  last_activity_at: number;
}

/** `POST /step`: the action, an optional time limit, and how to reply. */
const stepBodySchema = z.strictObject({
  action: actionSchema,
  timeout_s: z.number().positive({ error: 'must be a number of seconds > 0' }).optional(),
  request_id: z.string().max(255).optional(),
  ...replyOptionsShape,
});

/** `POST /fork` (and the WebSocket's `fork`): the new session's id (optional) and a retry's marker. */
const forkBodySchema = z.strictObject({
  new_session_id: z.string().optional(),
  request_id: z.string().min(1).max(255).optional(),
});

/** What `/fork` answers: the new session's reply (its full observation) and where it came from. */
export interface ForkReply extends EnvReply {
  /** The session that was forked. */
  forked_from: string;
  /** What the fork could not reproduce (a replayed pdb session that stopped elsewhere); usually empty. */
  warnings: readonly string[];
}

export interface Logger {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
}

export interface EnvServiceOptions {
  registry: SessionRegistry;
  metrics: ServerMetrics;
  /** Longest step (0: no limit); a request's `timeout_s` can only shorten it. */
  stepTimeoutMs: number;
  log: Logger;
  /** What the sandbox of these reset params may take from the host (default: the terminal defaults). */
  claimFor?: (params: ResetParams) => SandboxClaim;
}

/** The env operations both the HTTP routes and the WebSocket run, over the session registry. */
export class EnvService {
  constructor(private readonly options: EnvServiceOptions) {}

  /**
   * A reset. `sessionId` names the session: an open one is reset again (the same env when the
   * options are the same or left out), an unknown one is opened under that id; none opens a new one.
   * A session opened here and whose reset fails is closed again, so it holds no slot.
   */
  async reset(body: Record<string, unknown>, sessionId: string | undefined, transport: 'http' | 'ws'): Promise<EnvReply> {
    const { request, seed, episodeId, requestId } = readResetBody(body);
    const existing = sessionId === undefined ? undefined : this.options.registry.find(sessionId);
    if (existing) {
      return existing.once(requestId, () => {
        const { params, reply } = parseReset(request, existing);
        // New options may ask for a bigger sandbox: the budget must have room for it.
        if (params) this.options.registry.reclaim(existing, this.claimFor(params));
        return this.resetSession(existing, params, { seed, episodeId, task: taskLabel(params) ?? existing.labels.task }, reply, false);
      });
    }
    // Checked before a session is opened: a bad request takes no slot.
    const { params, reply } = parseReset(request, undefined);
    const session = this.options.registry.open(transport, sessionId, params ? this.claimFor(params) : DEFAULT_CLAIM);
    return session.once(requestId, () => this.resetSession(session, params, { seed, episodeId, task: taskLabel(params) }, reply, true));
  }

  /** A reset of a session the caller holds (a WebSocket's own). */
  async resetSession(session: ServedSession, params: Parameters<ServedSession['reset']>[0], labels: Parameters<ServedSession['reset']>[1], reply: ReplyOptions, closeOnFailure: boolean): Promise<EnvReply> {
    const { metrics, log } = this.options;
    const started = performance.now();
    let info: EnvInfo;
    try {
      info = await session.reset(params, labels);
    } catch (error) {
      const backend = session.env.backend ?? 'none';
      metrics.resets.inc({ backend, outcome: 'error' });
      if (String((error as { code?: unknown }).code).startsWith('DG_TERMINAL')) metrics.sandboxFailures.inc({ backend, stage: 'start' });
      if (closeOnFailure) await this.options.registry.close(session, 'its first reset failed').catch(() => undefined);
      throw error;
    }
    const seconds = (performance.now() - started) / 1000;
    const backend = session.env.backend ?? 'none';
    metrics.resets.inc({ backend, outcome: 'ok' });
    metrics.resetSeconds.observe({ backend }, seconds);
    metrics.sandboxStarts.inc({ backend });
    log.info({ session_id: session.id, backend, task: labels.task, seconds: round(seconds) }, 'session reset');
    return this.envReply(session, info, session.env.reply(info, reply), null, seconds);
  }

  /** One step; a step sent again with the same `request_id` (a retry) gets the first one's answer. */
  async step(session: ServedSession, body: unknown): Promise<EnvReply> {
    const request = parseRequest(stepBodySchema, body, 'step request');
    return session.once(request.request_id, () => this.runStep(session, request));
  }

  private async runStep(session: ServedSession, request: z.infer<typeof stepBodySchema>): Promise<EnvReply> {
    const { action, timeout_s: timeoutSeconds, reply, include } = request;
    const { metrics, stepTimeoutMs } = this.options;
    const limits = [stepTimeoutMs, timeoutSeconds === undefined ? 0 : timeoutSeconds * 1000].filter((ms) => ms > 0);
    const timeoutMs = limits.length > 0 ? Math.min(...limits) : 0;
    const before = session.score;
    const backend = session.env.backend ?? 'none';
    const started = performance.now();
    let info: EnvInfo;
    try {
      info = await session.step(toToolCall(action), timeoutMs);
    } catch (error) {
      const timedOut = error instanceof ServerError && error.code === 'DG_STEP_TIMEOUT';
      metrics.steps.inc({ backend, outcome: timedOut ? 'timeout' : 'error' });
      throw error;
    }
    const seconds = (performance.now() - started) / 1000;
    metrics.steps.inc({ backend, outcome: 'ok' });
    metrics.stepSeconds.observe({ backend }, seconds);
    if (info.terminationReason === 'fatal_error') metrics.sandboxFailures.inc({ backend, stage: 'episode' });
    return this.envReply(session, info, session.env.reply(info, { reply, include }), info.score - before, seconds);
  }

  /**
   * Branch `source` into a new session (`RepoEnv.fork()`): same state, independent from then on. The
   * new session takes a slot (a full server answers 503 before any work) and is closed again when the
   * fork fails; a fork sent again with the same `request_id` gets the first one's answer.
   */
  async fork(source: ServedSession, body: unknown): Promise<ForkReply> {
    const request = parseRequest(forkBodySchema, body ?? {}, 'fork request');
    return source.once(request.request_id, async () => {
      const { registry, metrics, log } = this.options;
      // The branch's sandbox has the same limits as its source's.
      const target = registry.open('http', request.new_session_id, source.claim);
      const started = performance.now();
      let warnings: readonly string[];
      try {
        warnings = await source.forkInto(target);
      } catch (error) {
        await registry.close(target, 'its fork failed').catch(() => undefined);
        throw error;
      }
      const seconds = (performance.now() - started) / 1000;
      const backend = target.env.backend ?? 'none';
      metrics.sandboxStarts.inc({ backend });
      log.info({ session_id: target.id, forked_from: source.id, backend, seconds: round(seconds), warnings: warnings.length }, 'session forked');
      const info = target.env.last as EnvInfo;
      // The whole info: the new session's lean replies start from what its client got here.
      return { ...this.envReply(target, info, target.env.reply(info), null, seconds), forked_from: source.id, warnings };
    });
  }

  private claimFor(params: ResetParams): SandboxClaim {
    return this.options.claimFor ? this.options.claimFor(params) : DEFAULT_CLAIM;
  }

  state(session: ServedSession): SessionState {
    const last = session.env.last;
    return {
      session_id: session.id,
      episode_id: session.labels.episodeId ?? null,
      step_count: last?.stepCount ?? 0,
      seed: session.labels.seed ?? null,
      task: session.labels.task ?? null,
      backend: session.env.backend ?? null,
      score: last?.score ?? null,
      max_score: last?.maxScore ?? null,
      resolved: last?.resolved ?? false,
      done: session.env.doneReason !== null,
      termination_reason: session.env.ended ?? last?.terminationReason ?? null,
      running: session.running,
      created_at: session.createdAt / 1000,
      last_activity_at: session.lastActivity / 1000,
    };
  }

  private envReply(session: ServedSession, info: EnvInfo, sent: Partial<EnvInfo>, reward: number | null, seconds: number): EnvReply {
    return {
      session_id: session.id,
      observation: toWire(sent),
      reward,
      done: info.terminated,
      info: {
        score: info.score,
        max_score: info.maxScore,
        resolved: info.resolved,
        terminated: info.terminated,
        truncated: info.terminationReason === 'fatal_error',
        termination_reason: info.terminationReason,
        step_count: info.stepCount,
        env_ms: round(seconds * 1000),
      },
    };
  }
}

/** The env params and reply options of a reset request; no env options on a session that had some: the same env again. */
function parseReset(request: Record<string, unknown>, session: ServedSession | undefined): { params: ResetParams | undefined; reply: ReplyOptions } {
  const { reply: replyMode, include, ...envKeys } = request;
  if (session && Object.keys(envKeys).length === 0 && session.env.canResetAgain) {
    return { params: undefined, reply: parseRequest(replyOptionsSchema, { reply: replyMode, include }, 'reset request') };
  }
  return splitReset(parseRequest(resetRequestSchema, request, 'reset request'));
}

function taskLabel(params: ResetParams | undefined): string | undefined {
  if (!params) return undefined;
  return params.benchmark ? `${params.benchmark}/${params.task}` : params.path;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
