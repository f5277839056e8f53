import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Hostnames a loopback server answers to (port-agnostic); anything else in `Host` is DNS rebinding. */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether `host` (an address to bind, or a hostname) only reaches this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare.startsWith('::ffff:127.');
}

/** A refused request: the HTTP status, why, and extra headers. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

export interface GuardOptions {
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** The server listens on loopback only: `Host` and `Origin` must name this machine. */
  loopback: boolean;
}

/** Null when the request may go on, else why not. Token check in constant time. */
export function checkRequest(request: IncomingMessage, options: GuardOptions): Refusal | null {
  if (options.loopback) {
    const host = hostnameOf(`http://${request.headers.host ?? ''}`);
    if (!host || !LOOPBACK_NAMES.has(host)) return { status: 403, message: `Host '${request.headers.host ?? ''}' is not allowed: this server only answers to localhost (DNS rebinding protection).` };
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null' && !LOOPBACK_NAMES.has(hostnameOf(origin) ?? '')) {
      return { status: 403, message: `Origin '${origin}' is not allowed: only pages served from localhost may call this server.` };
    }
  }
  if (options.token !== undefined && !bearerMatches(request.headers.authorization, options.token)) {
    return { status: 401, message: 'Missing or wrong token: send `Authorization: Bearer <token>` (the token given to `debug-gym mcp --token` or DEBUG_GYM_MCP_TOKEN).', headers: { 'www-authenticate': 'Bearer' } };
  }
  return null;
}

function hostnameOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** The token of `Bearer <token>` (any case, whitespace after it), trimmed; undefined for any other header. A scan, linear in the header. */
function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  let start = 6;
  while (start < header.length && header[start]?.trim() === '') start += 1;
  const token = header.slice(start).trim();
  // `\s+` then `.+`: at least one whitespace and one more character; `.` stops at line terminators.
  if (start === 6 || header.length - 6 < 2 || /[\n\r\u2028\u2029]/.test(header.slice(start))) return undefined;
  return token;
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = bearerToken(header);
  if (given === undefined) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(token));
}
