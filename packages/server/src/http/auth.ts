import { createHash, timingSafeEqual } from 'node:crypto';
import { ServerError } from '../errors.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * Checks `Authorization: Bearer <token>` in constant time (the digests have one length whatever
 * was sent). Throws a 401 ServerError when the header is missing or wrong.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => void {
  const expected = digest(token);
  return (authorization) => {
    const given = bearerToken(authorization);
    if (given === undefined) throw unauthorized('This server needs a bearer token: send `Authorization: Bearer <token>`.');
    if (!timingSafeEqual(digest(given), expected)) throw unauthorized('The bearer token is not the one this server was started with.');
  };
}

/**
 * The token of `Bearer <token>` (the scheme in any case, then spaces), trimmed; undefined when the
 * header is no bearer header. A scan, linear in the header, with `/^Bearer[ ]+(.+)$/i`'s answers.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 6).toLowerCase() !== 'bearer' || authorization[6] !== ' ') return undefined;
  if (/[\n\r\u2028\u2029]/.test(authorization)) return undefined;
  return authorization.slice(7).trim();
}

function unauthorized(message: string): ServerError {
  return new ServerError('DG_UNAUTHORIZED', message, 401);
}

/** True for names and addresses that only this machine reaches. */
export function isLoopback(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name) || /^::ffff:127(\.\d{1,3}){3}$/.test(name);
}
