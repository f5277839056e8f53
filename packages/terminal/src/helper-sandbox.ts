/**
 * A running sandbox served by the in-sandbox helper over a connection that can be replaced
 * (Docker: the container's attach stream, then `docker exec`; Kubernetes: an exec WebSocket):
 * helper requests, a new helper when the old one went away while the sandbox still runs, telling a
 * dead sandbox from a lost helper, streamed copies, and close. Backends say how to reach a helper,
 * why the sandbox is dead, and how to destroy it.
 */
import { SandboxUnavailableError, TerminalNotStartedError, UnrecoverableTerminalError } from '@debug-gym/core';
import { type HelperClient, HelperKilledError, HelperLostError, type HelperResponse } from './docker-helper-client.js';
import type { DockerSession } from './docker-session.js';

const HELPER_START_TIMEOUT_MS = 30_000;
/** Pause before trusting a "still running" answer after the helper vanished. */
const SETTLE_MS = 150;

export abstract class HelperSandbox {
  /** Hello line of the current helper: Python version, pid, uid, gid, shell. */
  info: HelperResponse | undefined;
  /** Open sessions: detached when the sandbox dies or closes. */
  readonly sessions = new Set<DockerSession>();
  private helper: HelperClient | undefined;
  private respawning: Promise<HelperClient> | undefined;
  private deadReason: string | undefined;
  private closedFlag = false;
  private nextUntar = 1;
  /** The fork server's start request, sent again to a helper that replaces a killed one. */
  forkStart: Record<string, unknown> | undefined;

  /** The terminal kind, for TerminalNotStartedError. */
  protected abstract readonly kind: string;

  /** Why the sandbox can no longer be used (gone, stopped, unreachable); undefined while it runs. */
  protected abstract deathReason(): Promise<string | undefined>;

  /** Start another helper in the running sandbox and connect to it (the caller sends the source). */
  protected abstract connectHelper(): Promise<HelperClient>;

  /** Remove the sandbox and everything in it (the helper's connection is dropped afterwards). */
  protected abstract destroy(): Promise<void>;

  /** The error for a helper that connected but never said hello (no usable Python, ...). */
  protected abstract helperUnavailable(error: Error): Error;

  /** A short name of the sandbox for messages (`container 0123abcd`, `pod debug-gym-x`). */
  protected abstract describe(): string;

  /** Map a backend error met while connecting a helper (default: as it is). */
  protected async deathError(error: unknown): Promise<Error> {
    return error as Error;
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Throws UnrecoverableTerminalError once the sandbox is known to be dead. */
  ensureUsable(): void {
    if (this.deadReason) throw new UnrecoverableTerminalError(this.deadReason);
  }

  /**
   * One helper request. When the helper goes away under it: a dead sandbox becomes an
   * UnrecoverableTerminalError; a live one gets a fresh helper, and the request is retried once
   * when `retry` is set (file operations), else reported as `lostError()` (HelperKilledError).
   */
  async call(op: string, params: Record<string, unknown>, options: { retry: boolean }): Promise<HelperResponse> {
    const helper = await this.liveHelper();
    try {
      return await helper.call(op, params);
    } catch (error) {
      if (!(error instanceof HelperLostError)) throw error;
      await this.checkAlive(error);
      // Restarting the helper right away also proves the sandbox is healthy (it fails if not).
      const fresh = await this.liveHelper();
      if (!options.retry) throw this.lostError(helper);
      try {
        return await fresh.call(op, params);
      } catch (again) {
        if (again instanceof HelperLostError) await this.checkAlive(again);
        throw again;
      }
    }
  }

  /** What a request that was running when its helper went away reports (default: the command killed it). */
  protected lostError(_helper: HelperClient): Error {
    return new HelperKilledError();
  }

  /** The helper, replaced by a new one when the old one went away but the sandbox still runs. */
  async liveHelper(): Promise<HelperClient> {
    this.ensureUsable();
    if (this.closedFlag) throw new TerminalNotStartedError(this.kind);
    const helper = this.helper;
    if (helper && !helper.lost) return helper;
    if (helper?.lost) await this.checkAlive(new HelperLostError('it exited'));
    this.respawning ??= this.spawnHelper(() => this.connectHelper())
      .catch((error: unknown) => {
        if (error instanceof UnrecoverableTerminalError || error instanceof TerminalNotStartedError) throw error;
        const reason = `The sandbox helper could not be restarted in ${this.describe()}: ${(error as Error).message}`;
        this.markDead(reason);
        throw new UnrecoverableTerminalError(reason, { cause: error });
      })
      .finally(() => {
        this.respawning = undefined;
      });
    return this.respawning;
  }

  /**
   * Throws UnrecoverableTerminalError (and remembers why) when the sandbox is no longer running.
   * A sandbox that is being killed can still report running for a few milliseconds after its
   * processes died, so a "running" answer is confirmed once more after a short pause.
   */
  async checkAlive(cause: Error): Promise<void> {
    if (this.closedFlag) throw new TerminalNotStartedError(this.kind);
    let reason = await this.deathReason();
    if (!reason) {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      reason = await this.deathReason();
    }
    if (reason) {
      this.markDead(reason);
      throw new UnrecoverableTerminalError(reason, { cause });
    }
  }

  /**
   * Extract a tar stream into `target` through the helper, in pieces of about `chunkBytes`
   * (extracted while it streams, so neither side holds the whole archive).
   */
  async untarStream(archive: AsyncIterable<unknown>, target: string, chunkBytes: number): Promise<void> {
    const tid = this.nextUntar++;
    await this.call('untar_open', { tid, path: target }, { retry: false });
    let failure: unknown;
    try {
      let parts: Buffer[] = [];
      let size = 0;
      for await (const chunk of archive) {
        parts.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (size < chunkBytes) continue;
        await this.call('untar_chunk', { tid, data: Buffer.concat(parts).toString('base64') }, { retry: false });
        parts = [];
        size = 0;
      }
      if (size > 0) await this.call('untar_chunk', { tid, data: Buffer.concat(parts).toString('base64') }, { retry: false });
    } catch (error) {
      failure = error;
    }
    // Closing ends the extraction (also after a failed read of the host tree) and reports its error.
    await this.call('untar_close', { tid }, { retry: false }).catch((error: unknown) => {
      failure ??= error;
    });
    if (failure) throw failure;
  }

  /** Remove the sandbox (every process in it dies with it); sessions are let go. Idempotent. */
  async close(): Promise<void> {
    if (this.closedFlag) return;
    this.closedFlag = true;
    const helper = this.helper;
    this.helper = undefined;
    this.respawning = undefined;
    this.detachSessions();
    try {
      // The helper's connection is dropped only afterwards: a Docker helper that sees EOF stops
      // the container itself, which would race with the removal.
      await this.destroy();
    } finally {
      helper?.close();
    }
  }

  protected markDead(reason: string): void {
    this.deadReason = reason;
    this.detachSessions();
  }

  private detachSessions(): void {
    for (const session of this.sessions) session.detach();
    this.sessions.clear();
  }

  /** Bring up a helper through `connect` and wait for its hello. */
  protected async spawnHelper(connect: () => Promise<HelperClient>): Promise<HelperClient> {
    let client: HelperClient;
    try {
      client = await connect();
    } catch (error) {
      throw await this.deathError(error);
    }
    client.sendSource();
    const timer = setTimeout(() => client.close(), HELPER_START_TIMEOUT_MS);
    try {
      this.info = await client.ready;
    } catch (error) {
      await this.checkAlive(error as Error);
      const unavailable = this.helperUnavailable(error as Error);
      throw unavailable instanceof SandboxUnavailableError ? unavailable : new SandboxUnavailableError(unavailable.message, { cause: error });
    } finally {
      clearTimeout(timer);
    }
    if (this.closedFlag) {
      client.close();
      throw new TerminalNotStartedError(this.kind);
    }
    this.helper = client;
    if (this.forkStart) client.call('fork_start', this.forkStart).catch(() => undefined);
    return client;
  }
}
