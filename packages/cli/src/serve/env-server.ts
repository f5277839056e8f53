import { DebugGymError, EnvNotReadyError, type EnvInfo } from '@debug-gym/core';
import {
  createEnvFactory,
  EnvSession,
  InvalidRequestError,
  parseRequest,
  replyOptionsSchema,
  resetRequestSchema,
  ShuttingDownError,
  splitReset,
  stepRequestSchema,
  toToolCall,
} from '@debug-gym/server';
import type { ServePolicyOptions } from '../commands/serve-http.js';
import { RPC_ERRORS, RpcError, type RpcErrorObject, type RpcMethod } from './json-rpc.js';
import { servePolicy } from './serve-policy.js';

export interface EnvServer {
  methods: Record<string, RpcMethod>;
  /** Turns a method's failure into a JSON-RPC error object. */
  toRpcError(error: unknown): RpcErrorObject;
  close(): Promise<void>;
  /**
   * Stop for good (a termination signal): the running request fails at once with
   * ShuttingDownError, later ones too, and the env is closed, which kills its running commands.
   */
  shutdown(signal: string): Promise<void>;
}

/** How long shutdown waits for a cancelled `reset` to hand over the env it was building. */
const SETTLE_MS = 1000;

/** Validation failures as JSON-RPC's invalid params. */
function checked<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof InvalidRequestError) throw new RpcError(RPC_ERRORS.invalidParams, error.message, { issues: error.issues });
    throw error;
  }
}

/** The handle of the env `reset` builds; `fork` names the others `fork-1`, `fork-2`, ... */
export const MAIN_ENV = 'main';

/** `env` of a request: which env it is for (default `main`). */
function handleOf(params: Record<string, unknown>): string {
  const { env } = params;
  if (env === undefined) return MAIN_ENV;
  if (typeof env !== 'string' || env === '') throw new RpcError(RPC_ERRORS.invalidParams, "`env` must be an env handle ('main' or one `fork` returned).", { env });
  return env;
}

/** `params` without `env`: what the method's own schema checks. */
function withoutHandle(raw: unknown): Record<string, unknown> {
  const { env: _env, ...rest } = (raw ?? {}) as Record<string, unknown>;
  return rest;
}

/**
 * The `reset` / `step` / `fork` / `close` methods: the main env session (what `reset` with params
 * builds; see @debug-gym/server's EnvSession) and the sessions `fork` branched off it or off each
 * other, each under its handle (`env` in the params; default `main`).
 */
export function createEnvServer(options: { cwd?: string } & ServePolicyOptions = {}): EnvServer {
  const factory = createEnvFactory(servePolicy(options, options.cwd ?? process.cwd()));
  const session = new EnvSession(factory);
  const forks = new Map<string, EnvSession>();
  let forkCount = 0;
  let stopping: ShuttingDownError | undefined;
  let running: { settled: Promise<unknown>; cancel: (error: Error) => void } | undefined;
  const sessionOf = (handle: string): EnvSession => {
    if (handle === MAIN_ENV) return session;
    const fork = forks.get(handle);
    if (!fork) throw new RpcError(RPC_ERRORS.invalidParams, `Unknown env handle '${handle}': use '${MAIN_ENV}' or one \`fork\` returned (open: ${[MAIN_ENV, ...forks.keys()].join(', ')}).`, { env: handle });
    return fork;
  };
  const closeAll = async (closeOptions: { final?: boolean } = {}): Promise<void> => {
    const closing = [...forks.values()];
    forks.clear();
    await Promise.all([session.close(closeOptions), ...closing.map((fork) => fork.close({ final: true }).catch(() => undefined))]);
  };
  const methods: Record<string, RpcMethod> = {
    async reset(raw): Promise<Partial<EnvInfo>> {
      const given = raw as Record<string, unknown>;
      const target = sessionOf(handleOf(given));
      const { reply: replyMode, include, ...rest } = withoutHandle(given);
      if (Object.keys(rest).length === 0 && target.canResetAgain) {
        const reply = checked(() => parseRequest(replyOptionsSchema, { reply: replyMode, include }, "params for 'reset'"));
        return target.reply(await target.reset(), reply);
      }
      if (target !== session) throw new RpcError(RPC_ERRORS.invalidParams, "A fork is reset with no options (`{\"env\": \"fork-1\"}`): options build a new env, which only `main` does.");
      const { params, reply } = checked(() => splitReset(parseRequest(resetRequestSchema, withoutHandle(given), "params for 'reset'")));
      return session.reply(await session.reset(params), reply);
    },
    async step(raw): Promise<Partial<EnvInfo>> {
      const target = sessionOf(handleOf((raw ?? {}) as Record<string, unknown>));
      const { reply, include, ...call } = checked(() => parseRequest(stepRequestSchema, withoutHandle(raw), "params for 'step'"));
      if (!target.hasEnv) throw new RpcError(RPC_ERRORS.notReady, 'No environment yet: call `reset` first (params: at least `path`).');
      return target.reply(await target.step(toToolCall(call)), { reply, include });
    },
    /** Branch an env (`main` by default): the handle of an independent env in the same state. */
    async fork(raw): Promise<{ env: string; warnings: readonly string[] }> {
      const given = (raw ?? {}) as Record<string, unknown>;
      const extra = Object.keys(withoutHandle(given));
      if (extra.length > 0) throw new RpcError(RPC_ERRORS.invalidParams, `Unknown key${extra.length > 1 ? 's' : ''} ${extra.map((key) => `\`${key}\``).join(', ')} in params for 'fork': it takes only \`env\`.`);
      const source = sessionOf(handleOf(given));
      if (!source.hasEnv) throw new RpcError(RPC_ERRORS.notReady, 'No environment yet: call `reset` first (params: at least `path`).');
      const branch = new EnvSession(factory);
      const warnings = await branch.forkFrom(source);
      if (stopping) {
        await branch.close({ final: true });
        throw stopping;
      }
      const handle = `fork-${++forkCount}`;
      forks.set(handle, branch);
      return { env: handle, warnings };
    },
    /** Close one env (`main` by default); the others stay open. */
    async close(raw): Promise<null> {
      const handle = handleOf((raw ?? {}) as Record<string, unknown>);
      const target = sessionOf(handle);
      if (target === session) {
        await session.close();
        return null;
      }
      forks.delete(handle);
      await target.close({ final: true });
      return null;
    },
  };
  /** Each method, cancelled by shutdown: it rejects at once, whatever it is waiting for. */
  const cancellable = Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [
      name,
      (params: unknown): Promise<unknown> => {
        if (stopping) return Promise.reject(stopping);
        const settled = method(params);
        return new Promise((resolve, reject) => {
          running = { settled, cancel: reject };
          settled.then(resolve, reject).finally(() => (running = undefined));
        });
      },
    ]),
  ) as Record<string, RpcMethod>;
  return {
    methods: cancellable,
    async shutdown(signal) {
      stopping ??= new ShuttingDownError(signal);
      const inFlight = running;
      inFlight?.cancel(stopping);
      await closeAll({ final: true });
      if (!inFlight) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([inFlight.settled.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, SETTLE_MS)))]);
      clearTimeout(timer);
      await closeAll({ final: true });
    },
    toRpcError(error) {
      if (EnvNotReadyError.isInstance(error)) return { code: RPC_ERRORS.notReady, message: `${error.message}: call \`reset\` first.`, data: { name: error.name, code: error.code } };
      if (DebugGymError.isInstance(error)) return { code: RPC_ERRORS.serverError, message: error.message, data: { name: error.name, code: error.code } };
      // The stack goes to stderr for whoever runs the server; the client (a model's harness) gets the message.
      const failure = error instanceof Error ? error : new Error(String(error));
      console.error(failure.stack ?? failure.message);
      return { code: RPC_ERRORS.internalError, message: `Internal error: ${failure.message}`, data: { name: failure.name } };
    },
    close: () => closeAll(),
  };
}
