import { LlmConfigError } from '../errors/index.js';

export interface EndpointPoolOptions {
  /** Index of the first endpoint handed out. Default: the process id, so separate runs start on different servers (as the original). */
  start?: number;
  /** How long an endpoint that failed is passed over. Default 30 s. */
  cooldownMs?: number;
  now?: () => number;
}

/**
 * Several endpoints serving one model (replicas behind no load balancer: llm.yaml `endpoints`). Each
 * conversation (session id: the task) gets the next endpoint in round-robin order and keeps it, so the
 * server's prefix cache serves its growing prompt; calls without a session rotate. An endpoint that does
 * not answer (connection refused or reset, timeout, 502/503/504) is passed over for `cooldownMs`, and its
 * conversations move to the next one (failover).
 */
export class EndpointPool {
  readonly endpoints: readonly string[];
  private next: number;
  private readonly sessions = new Map<string, string>();
  private readonly downUntil = new Map<string, number>();
  private readonly cooldownMs: number;
  private readonly now: () => number;

  constructor(endpoints: readonly string[], options: EndpointPoolOptions = {}) {
    if (endpoints.length === 0) throw new LlmConfigError('An endpoint pool needs at least one endpoint.');
    this.endpoints = [...new Set(endpoints)];
    this.next = Math.abs(options.start ?? process.pid) % this.endpoints.length;
    this.cooldownMs = options.cooldownMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The endpoint this session uses (assigned on its first call). */
  endpointFor(sessionId?: string): string {
    const held = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (held !== undefined && this.isUp(held)) return held;
    const chosen = this.take(held);
    if (sessionId !== undefined) {
      this.sessions.set(sessionId, chosen);
      if (this.sessions.size > 10_000) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return chosen;
  }

  /** `endpoint` failed: pass it over for a while; the session moves to another one. Returns the new endpoint. */
  failed(endpoint: string, sessionId?: string): string {
    this.downUntil.set(endpoint, this.now() + this.cooldownMs);
    if (sessionId !== undefined && this.sessions.get(sessionId) === endpoint) this.sessions.delete(sessionId);
    return this.endpointFor(sessionId);
  }

  private isUp(endpoint: string): boolean {
    return (this.downUntil.get(endpoint) ?? 0) <= this.now();
  }

  /** The next endpoint in round-robin order that is up (and not `avoid`), else the next one regardless. */
  private take(avoid?: string): string {
    const count = this.endpoints.length;
    for (let offset = 0; offset < count; offset += 1) {
      const candidate = this.endpoints[(this.next + offset) % count] as string;
      if (this.isUp(candidate) && candidate !== avoid) {
        this.next = (this.next + offset + 1) % count;
        return candidate;
      }
    }
    // Every endpoint failed recently: the one whose cooldown ends first gets another try.
    const soonest = [...this.endpoints].sort((a, b) => (this.downUntil.get(a) ?? 0) - (this.downUntil.get(b) ?? 0))[0] as string;
    return soonest;
  }
}

/** No HTTP answer, or a gateway saying the server behind it is away: worth trying another endpoint. */
export function isEndpointFailure(error: unknown): boolean {
  const e = (error ?? {}) as { status?: unknown; name?: unknown; message?: unknown };
  const status = typeof e.status === 'number' ? e.status : undefined;
  if (status !== undefined) return status === 502 || status === 503 || status === 504;
  const ctor = (error as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  const name = [e.name, ctor].filter((item): item is string => typeof item === 'string').join(' ');
  const message = typeof e.message === 'string' ? e.message : '';
  return /Connection|Timeout/.test(name) || /ECONN|ETIMEDOUT|socket hang up|timed out|Connection error/i.test(message);
}
