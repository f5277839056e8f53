import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { cp } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { ForkServerOptions, ForkServerStatus, RunOptions, RunResult, SessionOptions, TerminalOptions, TerminalSession } from '@debug-gym/core';
import { type HelperClient, HelperKilledError, HelperLostError, type HelperResponse } from './docker-helper-client.js';
import { helperRunResult } from './docker-run-result.js';
import { type DockerSession, openHelperSession } from './docker-session.js';
import { DEFAULT_FORK_GROUPS, forkServerStatus, forkStartParams, pythonParam } from './fork-server.js';
import { HostFiles } from './host-files.js';
import { HostTerminal, type LaunchRequest } from './host-terminal.js';
import { LocalForkHelper } from './local-fork-helper.js';
import { LocalZygote, type ZygoteSpec } from './local-zygote.js';
import { dieWithParent } from './parent-death.js';
import { HostPathResolver } from './path-resolver.js';
import { type PythonInstall, pythonBinDirs, pythonInstall } from './python-paths.js';
import { sharedPythonWrappers } from './python-wrappers.js';
import type { ProcessSpec } from './run-process.js';
import { defaultShell, shellArgv } from './shell-launch.js';
import { TERMINAL_ID_VARIABLE, killMarkedProcesses } from './stray-processes.js';

export interface LocalTerminalOptions extends TerminalOptions {
  /** Shell that runs commands (default `/bin/bash`, else `/bin/sh`). */
  shell?: string;
  /** Allow a fork server (`startForkServer`; default true). False: every Python command starts cold. */
  forkServer?: boolean;
  /**
   * Fork this terminal's fork server from a zygote shared by the process's local terminals of the same
   * interpreter and environment (local-zygote.ts; default true): no import of pytest per sandbox.
   */
  forkZygote?: boolean;
}

/**
 * Where a terminal's forked runs go: its own helper (and server), or the zygote's helper, which runs
 * the terminal's server among others, named `server`.
 */
interface ForkChannel {
  client: HelperClient;
  server: string | undefined;
  /** Own helper: closed (its server dies with it). Zygote's: this terminal's server stopped. */
  close(): Promise<void>;
}

/** A forked run whose helper went while it ran: killed with it, not run again. */
function lostRun(error: Error, started: number): RunResult {
  return {
    exitCode: null,
    output: `debug-gym: the command was killed: the fork server's helper exited while it ran (${error.message}); it was not run again.\n`,
    timedOut: false,
    droppedBytes: 0,
    durationMs: Date.now() - started,
    launch: { via: 'fork-server' },
  };
}

/** What a local command gets from Node when its direct child dies with it (setpriv --pdeathsig KILL). */
const PDEATHSIG_KILL = 9;

/**
 * No sandbox: commands run as this user in a fresh temp directory, with a scrubbed environment.
 * Fast and dependency free, but a command can read and write anything this user can.
 */
export class LocalTerminal extends HostTerminal {
  readonly kind = 'local';
  private readonly shell: string;
  private readonly forkAllowed: boolean;
  private readonly localOptions: LocalTerminalOptions;
  private id = '';
  private install: PythonInstall | undefined;
  /** The helper in front of this sandbox's fork server (set by startForkServer). */
  private forkChannel: Promise<ForkChannel> | undefined;
  private readonly helperSessions = new Set<DockerSession>();
  /** Where this terminal's fork server came from: the zygote's pid, or why not from a zygote. */
  private serverOrigin: { zygote: number } | { started: string } | undefined;
  private zygoteSpec: ZygoteSpec | undefined;

  constructor(options: LocalTerminalOptions = {}) {
    super(options);
    this.localOptions = options;
    this.shell = options.shell ?? defaultShell();
    this.forkAllowed = options.forkServer !== false;
  }

  /** A new temp working copy with the same options, a copy of this one (copy-on-write where the file system can). */
  async fork(): Promise<LocalTerminal> {
    const source = this.workdir;
    const clone = new LocalTerminal(this.localOptions);
    await clone.start();
    try {
      await cp(source, clone.workdir, { recursive: true, verbatimSymlinks: true, force: true, preserveTimestamps: true, mode: constants.COPYFILE_FICLONE });
    } catch (error) {
      await clone.close();
      throw error;
    }
    return clone;
  }

  async startForkServer(options: ForkServerOptions = {}): Promise<ForkServerStatus> {
    if (!this.forkAllowed) return { ready: false, reason: 'the fork server is turned off (forkServer: false)' };
    const workdir = this.workdir;
    const env = this.commandEnv('dumb', undefined);
    const groups = options.preload ?? DEFAULT_FORK_GROUPS;
    const helperPython = this.install?.executable ?? this.python;
    this.zygoteSpec = this.localOptions.forkZygote === false ? undefined : { python: this.python, helperPython, shell: this.shell, groups, env };
    const zygote = !this.forkChannel && this.zygoteSpec ? LocalZygote.current(this.zygoteSpec) : undefined;
    const params = forkStartParams({
      python: this.python,
      workdir,
      groups,
      standbys: options.standbys !== false,
      env,
      wrap: (command) => shellArgv(this.shell, { cwd: workdir, command }),
      ...(zygote ? { zygote: { marker: TERMINAL_ID_VARIABLE } } : {}),
    });
    let started: Promise<HelperResponse> | undefined;
    // Resolves once fork_start is on its way: a run sent after it waits for the server.
    if (zygote) {
      // The zygote's helper runs this terminal's server too, named after the terminal: no helper of its own to start.
      const server = this.id;
      const client = zygote.client;
      zygote.acquire();
      started = client.call('fork_start', { ...params, server });
      const close = async (): Promise<void> => {
        await client.call('fork_stop', { server }).catch(() => undefined);
        zygote.release();
      };
      this.forkChannel = Promise.resolve({ client, server, close });
    }
    this.forkChannel ??= LocalForkHelper.start({ python: helperPython, env }).then((helper) => {
      if (helper.pid !== undefined) this.lease?.addGroup(helper.pid);
      started = helper.client.call('fork_start', params);
      return { client: helper.client, server: undefined, close: () => helper.close() };
    });
    try {
      const channel = await this.forkChannel;
      const response = await (started ?? channel.client.call('fork_start', { ...params, ...(channel.server ? { server: channel.server } : {}) }));
      const from = (response.server as { zygote?: unknown } | undefined)?.zygote;
      this.serverOrigin = typeof from === 'number' ? { zygote: from } : { started: typeof from === 'string' ? from : zygote ? 'the zygote was not asked' : 'no zygote was ready' };
      return forkServerStatus(response);
    } catch (error) {
      return { ready: false, reason: `the fork server could not start: ${(error as Error).message}` };
    }
  }

  /**
   * Where the fork server came from: `{ zygote: pid }` when the process's zygote forked it (see
   * local-zygote.ts), else `{ started }` with why it was started as its own interpreter; undefined
   * before startForkServer.
   */
  get forkServerOrigin(): { zygote: number } | { started: string } | undefined {
    return this.serverOrigin;
  }

  /** Wait for the zygote of this terminal's kind that startForkServer started (tests, benchmarks): whether one is ready. */
  async zygoteReady(): Promise<boolean> {
    return this.zygoteSpec !== undefined && (await LocalZygote.whenReady(this.zygoteSpec)) !== undefined;
  }

  override async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const launch = options.python;
    if (!launch || !this.forkAllowed) return super.run(command, options);
    const cold = async (reason: string): Promise<RunResult> => ({ ...(await super.run(command, options)), launch: { via: 'cold', reason } });
    const helper = await this.liveForkChannel();
    if (typeof helper === 'string') return cold(helper);
    const cwd = await this.checkedCwd(options.cwd);
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    let response;
    try {
      response = await helper.client.call('run', {
      cmd: command,
      timeout: timeoutMs > 0 ? timeoutMs / 1000 : null,
      cap: this.maxOutputBytes,
      env: this.commandEnv('dumb', options.env),
      cwd,
      python: pythonParam(launch, PDEATHSIG_KILL, helper.server),
      fallback: false,
        ...(options.input === undefined ? {} : { input: Buffer.from(options.input, 'utf8').toString('base64') }),
      });
    } catch (error) {
      // The helper went while the command may have been running (its server and the command with it):
      // running it again cold could run it twice.
      if (error instanceof HelperLostError || error instanceof HelperKilledError) return lostRun(error as Error, started);
      return cold(`the fork server's helper failed: ${(error as Error).message}`);
    }
    if (typeof response.refused === 'string') return cold(response.refused);
    return helperRunResult(response, started);
  }

  override async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    const launch = options.python;
    if (!launch || !this.forkAllowed) return super.openSession(command, options);
    const cold = async (reason: string): Promise<TerminalSession> => Object.assign(await super.openSession(command, options), { launch: { via: 'cold' as const, reason } });
    const helper = await this.liveForkChannel();
    if (typeof helper === 'string') return cold(helper);
    const cwd = await this.checkedCwd(options.cwd);
    let opened;
    try {
      opened = await openHelperSession(helper.client, {
      command,
      cwd,
      env: this.commandEnv('xterm', options.env),
      prompt: options.prompt,
      timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
      maxOutputBytes: this.maxOutputBytes,
      sessions: this.helperSessions,
      python: launch,
        pdeathsig: PDEATHSIG_KILL,
        ...(helper.server ? { forkServer: helper.server } : {}),
        fallback: false,
      });
    } catch (error) {
      return cold(`the fork server's helper failed: ${(error as Error).message}`);
    }
    return 'refused' in opened ? cold(opened.refused) : opened;
  }

  /** The fork server's helper, or why there is none. */
  private async liveForkChannel(): Promise<ForkChannel | string> {
    if (!this.forkChannel) return 'the fork server was not started';
    try {
      const helper = await this.forkChannel;
      return helper.client.lost ? "the fork server's helper exited" : helper;
    } catch (error) {
      return `the fork server could not start: ${(error as Error).message}`;
    }
  }

  protected async prepare(workdir: string): Promise<HostFiles> {
    this.id = randomBytes(8).toString('hex');
    this.lease?.markProcesses(TERMINAL_ID_VARIABLE, this.id);
    this.install = await pythonInstall(this.python);
    // python, python3, pip, pip3: the configured interpreter (a directory shared by the sandboxes of the interpreter, so they share a zygote).
    const bin = this.install.executable ? [await sharedPythonWrappers(this.install.executable)] : [];
    this.pathFirst = [...bin, ...pythonBinDirs(this.install)];
    return new HostFiles(new HostPathResolver(workdir));
  }

  protected launch(request: LaunchRequest): ProcessSpec {
    const [file, ...args] = shellArgv(this.shell, { cwd: request.cwd, command: request.command, session: request.session });
    return dieWithParent({ file: file as string, args, env: { ...request.env, [TERMINAL_ID_VARIABLE]: this.id }, cwd: request.cwd });
  }

  protected home(): string {
    return process.env.HOME || homedir();
  }

  protected async teardown(): Promise<void> {
    const helper = this.forkChannel;
    this.forkChannel = undefined;
    await Promise.all([...this.helperSessions].map((session) => session.close()));
    if (helper) await (await helper.catch(() => undefined))?.close();
    await killMarkedProcesses(this.id);
  }

  /** The environment of a command of this sandbox, marker included (what `launch` gives the cold path). */
  private commandEnv(term: 'dumb' | 'xterm', extra: Record<string, string> | undefined): Record<string, string> {
    return { ...this.env(term, extra), [TERMINAL_ID_VARIABLE]: this.id };
  }
}
