/**
 * The local backend's zygote: one warm fork server per interpreter, shell, environment and groups,
 * shared by this process's local terminals, that forks each terminal's fork server instead of a new
 * interpreter importing pytest again (~0.1 s of CPU per sandbox, a fifth of a short episode's).
 *
 * Only the local backend has one: its sandboxes are directories of this host, so a process of this
 * host can serve them all (a jail or a container needs a server inside it). The zygote is
 * python/fork_server.py in zygote mode, started through the same helper and shell wrapper as a
 * terminal's own server, in an empty directory of its own (0700). Its helper also runs the servers it
 * forks, one per terminal (requests name it): the helper asks the zygote over the zygote's control
 * socket, which nothing else holds, and starts the server as usual whatever the zygote refuses (see
 * `zygote_check`: anything that would make the forked server differ from a started one).
 *
 * The first terminals of a kind start their own servers, the second one the zygote too, in the
 * background; later ones get theirs from the zygote. A zygote holds this process open only while a
 * terminal uses it, is closed after 10 s without one, and dies with the process (the helper's
 * PR_SET_PDEATHSIG chain; its directory is leased for `gc`).
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, realpath } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ForkGroup } from '@debug-gym/core';
import type { HelperClient } from './docker-helper-client.js';
import { forkStartParams } from './fork-server.js';
import { Lease } from './leases.js';
import { LocalForkHelper } from './local-fork-helper.js';
import { type ProcStat, procStat } from './process-identity.js';
import { shellArgv } from './shell-launch.js';
import { TERMINAL_ID_VARIABLE } from './stray-processes.js';

export interface ZygoteSpec {
  /** The interpreter of the sandbox (as its commands name it). */
  python: string;
  /** Absolute path of that interpreter, which runs the helper. */
  helperPython: string;
  shell: string;
  groups: readonly ForkGroup[];
  /** A terminal's command environment; its TERMINAL_ID_VARIABLE is the one variable that may differ. */
  env: Record<string, string>;
}

/** Zygotes of one kind found dead or stopped before none is started any more (the agent can kill them). */
const MAX_DEATHS = 8;
/** Kinds remembered (how often seen); past it the oldest without a zygote are forgotten. */
const MAX_KINDS = 256;
/**
 * Terminals of a kind seen before its zygote is started: a kind seen once (a one-off environment)
 * gets none, as it would only cost an interpreter more.
 */
const SIGHTINGS_BEFORE_START = 2;
/** How long a zygote no terminal uses stays (sequential episodes close one sandbox, then start the next). */
const IDLE_CLOSE_MS = 10_000;
/** How often a zygote in use looks whether its helper was stopped. */
const WATCH_MS = 500;

interface Entry {
  zygote: Promise<LocalZygote | undefined>;
  ready: LocalZygote | undefined;
  starting: boolean;
  deaths: number;
  seen: number;
  disabled: boolean;
}

const entries = new Map<string, Entry>();
/** Each live zygote's directory, with the lease that lets `gc` remove it (and kill what is left) after a SIGKILL. */
const places = new Map<string, Lease>();
let exitHook = false;

export class LocalZygote {
  private readonly start: string | undefined;
  private users = 0;
  private idle: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
  private readonly key: string;
  /** The helper's limits, nice value and affinity when the zygote was ready (a server it starts inherits them). */
  private readonly helperStart: string | undefined;

  private constructor(
    readonly pid: number,
    private readonly helper: LocalForkHelper,
    private readonly directory: string,
    spec: ZygoteSpec,
  ) {
    this.start = procStat(pid)?.start;
    this.helperStart = helper.pid === undefined ? undefined : helperAttributes(helper.pid);
    this.key = zygoteKey(spec);
    this.idleSoon();
  }

  /** The zygote's helper, which also runs the servers it forks, one per terminal (named by `server`). */
  get client(): HelperClient {
    return this.helper.client;
  }

  /**
   * A terminal runs through the zygote's helper from now until release(): the helper holds this
   * process open meanwhile, as a terminal's own helper does (and no longer once none uses it).
   */
  acquire(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    if (this.users++ > 0) return;
    this.helper.keepAlive(true);
    // A helper the agent stopped (same user) would hang every terminal it serves, mid-command: killed
    // (their commands fail, their later ones run cold) and replaced.
    this.watch = setInterval(() => {
      if (!this.alive()) this.retire();
    }, WATCH_MS);
    this.watch.unref();
  }

  release(): void {
    if (this.users > 0 && --this.users === 0) {
      clearInterval(this.watch);
      this.helper.keepAlive(false);
      this.idleSoon();
    }
  }

  /** Out of its kind's entry (the next terminal of the kind starts a new one; a death counts) and closed. */
  private retire(): void {
    const entry = entries.get(this.key);
    if (entry?.ready === this) {
      entry.ready = undefined;
      entry.zygote = Promise.resolve(undefined);
      if (++entry.deaths >= MAX_DEATHS) entry.disabled = true;
    }
    void this.close();
  }

  /** Closed once no terminal has used it for IDLE_CLOSE_MS (the timer holds no event-loop handle). */
  private idleSoon(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      const entry = entries.get(this.key);
      if (this.users > 0) return;
      if (entry?.ready === this) {
        entry.ready = undefined;
        entry.zygote = Promise.resolve(undefined);
      }
      void this.close();
    }, IDLE_CLOSE_MS);
    this.idle.unref();
  }

  /**
   * The ready zygote of this kind, or undefined (then the terminal starts its own server). The
   * second call of a kind starts one in the background, as does the next call after it died or was
   * closed for idleness (after 8 deaths, none: the agent keeps killing them).
   */
  static current(spec: ZygoteSpec): LocalZygote | undefined {
    const key = zygoteKey(spec);
    let entry = entries.get(key);
    if (!entry) {
      forgetOldKinds();
      entry = { zygote: Promise.resolve(undefined), ready: undefined, starting: false, deaths: 0, seen: 0, disabled: false };
      entries.set(key, entry);
    }
    entry.seen += 1;
    if (entry.ready && !entry.ready.alive()) entry.ready.retire();
    if (entry.ready) return entry.ready;
    if (entry.starting || entry.disabled || entry.seen < SIGHTINGS_BEFORE_START) return undefined;
    const current = entry;
    current.starting = true;
    current.zygote = LocalZygote.launch(spec).then((zygote) => {
      current.starting = false;
      // One that could not start (stopped while importing, or a problem of the interpreter) counts as a death.
      if (zygote) current.ready = zygote;
      else if (++current.deaths >= MAX_DEATHS) current.disabled = true;
      return zygote;
    });
    return undefined;
  }

  /** Wait for the zygote of this kind that is starting, if any (tests and benchmarks). */
  static async whenReady(spec: ZygoteSpec): Promise<LocalZygote | undefined> {
    return entries.get(zygoteKey(spec))?.zygote;
  }

  /** Stop every zygote of this process (tests; they die with the process anyway). */
  static async closeAll(): Promise<void> {
    const all = [...entries.values()];
    entries.clear();
    await Promise.all(all.map(async (entry) => (await entry.zygote.catch(() => undefined))?.close()));
  }

  private static async launch(spec: ZygoteSpec): Promise<LocalZygote | undefined> {
    let directory: string | undefined;
    let helper: LocalForkHelper | undefined;
    const marker = randomBytes(8).toString('hex');
    try {
      const lease = Lease.open('local');
      lease.markProcesses(TERMINAL_ID_VARIABLE, marker);
      directory = await realpath(await mkdtemp(join(tmpdir(), 'dg-zygote-'))).catch((error: unknown) => {
        lease.release();
        throw error;
      });
      lease.addDir(directory);
      remember(directory, lease);
      const env = { ...spec.env, [TERMINAL_ID_VARIABLE]: marker };
      helper = await LocalForkHelper.start({ python: spec.helperPython, env });
      helper.keepAlive(false);
      const cwd = directory;
      const response = await helper.client.call('fork_start', forkStartParams({
        python: spec.python,
        workdir: cwd,
        groups: spec.groups,
        standbys: false,
        env,
        wrap: (command) => shellArgv(spec.shell, { cwd, command }),
        asZygote: true,
      }));
      const server = (response.server ?? {}) as Record<string, unknown>;
      const problems = (server.problems ?? {}) as Record<string, unknown>;
      if (server.ready !== true || server.zygote !== true || typeof server.pid !== 'number' || Object.keys(problems).length > 0) {
        throw new Error(String(server.reason ?? server.zygote ?? 'the zygote did not start'));
      }
      return new LocalZygote(server.pid, helper, directory, spec);
    } catch {
      await helper?.close().catch(() => undefined);
      if (directory) forget(directory);
      return undefined;
    }
  }

  /**
   * Its helper is there and not stopped (the agent can stop or kill it: same user). The zygote itself
   * is the helper's to watch: it kills a stopped one and starts a new one when one is gone.
   */
  alive(): boolean {
    if (this.helper.client.lost || this.helper.pid === undefined) return false;
    const stat = procStat(this.helper.pid);
    return stat !== undefined && !['T', 't', 'Z', 'X'].includes(stat.state) && helperAttributes(this.helper.pid, stat) === this.helperStart;
  }

  async close(): Promise<void> {
    clearTimeout(this.idle);
    clearInterval(this.watch);
    if (procStat(this.pid)?.start === this.start) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await this.helper.close().catch(() => undefined);
    forget(this.directory);
  }
}

/** The directories of this process's live zygotes (tests: they must be gone once it exits). */
export function zygoteDirectories(): string[] {
  return [...places.keys()];
}

/**
 * A process's resource limits, nice value and allowed CPUs, as /proc shows them to anyone (non-dumpable
 * or not): what another process of the same user can change without ptrace.
 */
function helperAttributes(pid: number, stat: ProcStat | undefined = procStat(pid)): string | undefined {
  if (!stat) return undefined;
  try {
    const cpus = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((line) => line.startsWith('Cpus_allowed_list:'))?.slice(18).trim();
    return `${readFileSync(`/proc/${pid}/limits`, 'utf8')}\nnice ${stat.nice}\ncpus ${cpus}`;
  } catch {
    return undefined;
  }
}

function forgetOldKinds(): void {
  if (entries.size < MAX_KINDS) return;
  for (const [key, entry] of entries) {
    if (entries.size < MAX_KINDS) break;
    if (!entry.ready && !entry.starting) entries.delete(key);
  }
}

function zygoteKey(spec: ZygoteSpec): string {
  const { [TERMINAL_ID_VARIABLE]: _marker, ...env } = spec.env;
  const sorted = Object.fromEntries(Object.entries(env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify([spec.python, spec.helperPython, spec.shell, spec.groups, sorted]);
}

function remember(directory: string, lease: Lease): void {
  places.set(directory, lease);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const left of [...places.keys()]) forget(left);
    });
  }
}

function forget(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
  places.get(directory)?.release();
  places.delete(directory);
}
