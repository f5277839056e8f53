import { exceedsDepth } from '@debug-gym/core';

/** JSON-RPC 2.0 error codes. */
export const RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The env failed (sandbox, tool loading, ...): `data` carries the error's name and code. */
  serverError: -32000,
  /** `step` before `reset`. */
  notReady: -32001,
} as const;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcId = string | number | null;

export type RpcResponse = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorObject };

/** A failure a method reports to the client as a JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** Requests nested deeper than this (objects and arrays) are refused before anything walks them. */
export const MAX_REQUEST_DEPTH = 64;

export type RpcMethod = (params: unknown) => Promise<unknown>;

export interface RpcDispatcher {
  /** Handle one line of input; resolves to the line to send back (null for notifications and blank lines). */
  handleLine(line: string): Promise<string | null>;
}

function errorResponse(id: RpcId, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

function serialize(response: RpcResponse | RpcResponse[]): string {
  try {
    return JSON.stringify(response);
  } catch (error) {
    // A result that cannot be serialized (a cycle, a RangeError) must not take the server down.
    const id = Array.isArray(response) ? null : response.id;
    return JSON.stringify(errorResponse(id, RPC_ERRORS.internalError, `Internal error: the answer could not be serialized (${(error as Error).message}).`));
  }
}

/** The answer to a request line longer than the limit (it was dropped unread). */
export function requestTooLarge(bytes: number, maxBytes: number): string {
  return JSON.stringify(
    errorResponse(
      null,
      RPC_ERRORS.invalidRequest,
      `Invalid request: the line is too large (${bytes} bytes; the limit is ${maxBytes} bytes). Send smaller requests, e.g. write a big file in parts.`,
    ),
  );
}

function validId(id: unknown): id is RpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

/**
 * A JSON-RPC 2.0 dispatcher over lines: one request (or batch) per line, one response per line.
 * Requests are answered in order; methods not in `methods` get -32601, malformed input -32700/-32600.
 */
export function createDispatcher(methods: Readonly<Record<string, RpcMethod>>, onError: (error: unknown) => RpcErrorObject): RpcDispatcher {
  const handleOne = async (request: unknown): Promise<RpcResponse | null> => {
    if (!request || typeof request !== 'object' || Array.isArray(request)) {
      return errorResponse(null, RPC_ERRORS.invalidRequest, 'Invalid request: expected an object like {"jsonrpc": "2.0", "id": 1, "method": "reset", "params": {...}}.');
    }
    const { jsonrpc, method, params } = request as Record<string, unknown>;
    const hasId = Object.hasOwn(request, 'id');
    const id = (request as { id?: unknown }).id;
    if (hasId && !validId(id)) return errorResponse(null, RPC_ERRORS.invalidRequest, 'Invalid request: `id` must be a string, a number or null.');
    const replyId = hasId ? (id as RpcId) : null;
    if (jsonrpc !== '2.0') return errorResponse(replyId, RPC_ERRORS.invalidRequest, 'Invalid request: `jsonrpc` must be "2.0".');
    if (typeof method !== 'string') return errorResponse(replyId, RPC_ERRORS.invalidRequest, 'Invalid request: `method` must be a string.');
    if (params !== undefined && (params === null || typeof params !== 'object')) {
      return errorResponse(replyId, RPC_ERRORS.invalidRequest, 'Invalid request: `params` must be an object (or omitted).');
    }
    let response: RpcResponse;
    const handler = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (!handler) {
      response = errorResponse(replyId, RPC_ERRORS.methodNotFound, `Method not found: '${method}'. Methods: ${Object.keys(methods).join(', ')}.`);
    } else {
      try {
        response = { jsonrpc: '2.0', id: replyId, result: (await handler(params ?? {})) ?? null };
      } catch (error) {
        const object = error instanceof RpcError ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } : onError(error);
        response = { jsonrpc: '2.0', id: replyId, error: object };
      }
    }
    return hasId ? response : null;
  };
  return {
    async handleLine(line) {
      if (line.trim() === '') return null;
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch (error) {
        return JSON.stringify(errorResponse(null, RPC_ERRORS.parseError, `Parse error: the line is not valid JSON (${(error as Error).message}).`));
      }
      if (exceedsDepth(message, MAX_REQUEST_DEPTH)) {
        const id = message && typeof message === 'object' && !Array.isArray(message) ? (message as { id?: unknown }).id : null;
        return serialize(errorResponse(validId(id) ? id : null, RPC_ERRORS.invalidRequest, `Invalid request: nested too deeply (more than ${MAX_REQUEST_DEPTH} levels of objects and arrays).`));
      }
      if (Array.isArray(message)) {
        if (message.length === 0) return JSON.stringify(errorResponse(null, RPC_ERRORS.invalidRequest, 'Invalid request: empty batch.'));
        const responses: RpcResponse[] = [];
        for (const item of message) {
          const response = await handleOne(item);
          if (response) responses.push(response);
        }
        return responses.length === 0 ? null : serialize(responses);
      }
      const response = await handleOne(message);
      return response ? serialize(response) : null;
    },
  };
}
