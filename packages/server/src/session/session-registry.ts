import { randomUUID } from 'node:crypto';
import { InvalidRequestError, ServerFullError, SessionClosedError, UnknownSessionError } from '../errors.js';
import type { EnvFactory } from '../params/env-factory.js';
import { admit, DEFAULT_CLAIM, type HostBudget, type SandboxClaim } from './sandbox-budget.js';
import { ServedSession } from './served-session.js';

export interface SessionRegistryOptions {
  factory: EnvFactory;
  maxSessions: number;
  /** What all sessions' sandboxes may claim together (default: no limit but maxSessions). */
  budget?: HostBudget;
  /** Sessions without a request for this long are closed (0: never). */
  idleTtlMs: number;
  /** Told about every closed session (metrics, logs, a WebSocket to close). */
  onClose?: (session: ServedSession, reason: string) => void;
}

/** Client-chosen session ids: what fits in a header and a log line. */
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** How many closed session ids are remembered, so a late request hears why its session is gone. */
const TOMBSTONES = 4096;

/**
 * The sessions of one server: at most `maxSessions` at once, closed by the client, by the idle TTL
 * or all at once on shutdown. A closed session's id is remembered (bounded) with why it was closed.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, ServedSession>();
  private readonly closed = new Map<string, string>();
  private reaper: NodeJS.Timeout | undefined;
  private stopping: string | null = null;

  constructor(private readonly options: SessionRegistryOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  get busy(): number {
    let count = 0;
    for (const session of this.sessions.values()) if (session.running) count += 1;
    return count;
  }

  get maxSessions(): number {
    return this.options.maxSessions;
  }

  /**
   * A new session (with the client's id when it gives one) whose sandbox may take `claim`; refused
   * with ServerFullError when every slot is taken, and by the budget when the sandboxes' limits
   * together would exceed what the host has.
   */
  open(transport: 'http' | 'ws', id?: string, claim: SandboxClaim = DEFAULT_CLAIM): ServedSession {
    if (this.stopping) throw new SessionClosedError(id ?? '(new)', this.stopping);
    if (id !== undefined) checkId(id);
    const sessionId = id ?? randomUUID();
    if (this.sessions.has(sessionId)) throw new InvalidRequestError('session id', [`Session '${sessionId}' is already open.`]);
    if (this.sessions.size >= this.options.maxSessions) throw new ServerFullError(this.options.maxSessions, this.retryAfterSeconds());
    if (this.options.budget) admit(this.options.budget, this.held(), claim, () => this.retryAfterSeconds());
    this.closed.delete(sessionId);
    const session = new ServedSession(sessionId, this.options.factory, transport);
    session.claim = { ...claim };
    this.sessions.set(sessionId, session);
    return session;
  }

  /** An open session's sandbox will take `claim` from now on (a reset with other limits), if the budget has room. */
  reclaim(session: ServedSession, claim: SandboxClaim): void {
    if (this.options.budget) {
      const held = this.held();
      admit(this.options.budget, { memoryBytes: held.memoryBytes - session.claim.memoryBytes, pids: held.pids - session.claim.pids }, claim, () => this.retryAfterSeconds());
    }
    session.claim = { ...claim };
  }

  /** What the open sessions' sandboxes claim together. */
  held(): SandboxClaim {
    let memoryBytes = 0;
    let pids = 0;
    for (const session of this.sessions.values()) {
      memoryBytes += session.claim.memoryBytes;
      pids += session.claim.pids;
    }
    return { memoryBytes, pids };
  }

  get budget(): HostBudget | undefined {
    return this.options.budget;
  }

  /** The open session `id`, or a precise error: closed (and why), or unknown. */
  get(id: string): ServedSession {
    const session = this.find(id);
    if (session) return session;
    const reason = this.closed.get(id);
    throw reason ? new SessionClosedError(id, reason) : new UnknownSessionError(id);
  }

  find(id: string): ServedSession | undefined {
    return this.sessions.get(id);
  }

  /** Why `id` was closed, if it was (and is remembered). */
  closedReason(id: string): string | undefined {
    return this.closed.get(id);
  }

  async close(session: ServedSession, reason: string): Promise<void> {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.closed.set(session.id, reason);
    if (this.closed.size > TOMBSTONES) this.closed.delete(this.closed.keys().next().value as string);
    this.options.onClose?.(session, reason);
    await session.close(reason);
  }

  /** Close the sessions idle longer than the TTL; returns how many. */
  async reapIdle(): Promise<number> {
    const ttl = this.options.idleTtlMs;
    if (ttl <= 0) return 0;
    const idle = [...this.sessions.values()].filter((session) => session.idleMs >= ttl);
    await Promise.all(idle.map((session) => this.close(session, `idle for more than ${ttl / 1000} s`).catch(() => undefined)));
    return idle.length;
  }

  /** Check for idle sessions every quarter of the TTL (between 0.25 s and 30 s). */
  startReaper(): void {
    if (this.options.idleTtlMs <= 0 || this.reaper) return;
    const every = Math.min(30_000, Math.max(250, this.options.idleTtlMs / 4));
    this.reaper = setInterval(() => void this.reapIdle(), every);
    this.reaper.unref();
  }

  /** Close every session (their running requests fail), and refuse new ones. */
  async closeAll(reason: string): Promise<void> {
    this.stopping = reason;
    clearInterval(this.reaper);
    this.reaper = undefined;
    await Promise.all([...this.sessions.values()].map((session) => this.close(session, reason).catch(() => undefined)));
  }

  /** When a slot may free up: the idle session closest to its TTL, else a few seconds. */
  private retryAfterSeconds(): number {
    const ttl = this.options.idleTtlMs;
    if (ttl <= 0) return 5;
    let soonest = Infinity;
    for (const session of this.sessions.values()) if (!session.running) soonest = Math.min(soonest, ttl - session.idleMs);
    return Number.isFinite(soonest) ? Math.min(60, Math.max(1, Math.ceil(soonest / 1000))) : 5;
  }
}

function checkId(id: string): void {
  if (!SESSION_ID.test(id)) throw new InvalidRequestError('session id', [`\`session_id\` must be 1 to 128 letters, digits or . _ : - (got ${JSON.stringify(id.slice(0, 140))}).`]);
}
