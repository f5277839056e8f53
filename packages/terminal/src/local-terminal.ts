import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import type { TerminalOptions } from '@debug-gym/core';
import { HostFiles } from './host-files.js';
import { HostTerminal, type LaunchRequest } from './host-terminal.js';
import { dieWithParent } from './parent-death.js';
import { HostPathResolver } from './path-resolver.js';
import { pythonBinDirs, pythonInstall } from './python-paths.js';
import type { ProcessSpec } from './run-process.js';
import { defaultShell, shellArgv } from './shell-launch.js';
import { TERMINAL_ID_VARIABLE, killMarkedProcesses } from './stray-processes.js';

export interface LocalTerminalOptions extends TerminalOptions {
  /** Shell that runs commands (default `/bin/bash`, else `/bin/sh`). */
  shell?: string;
}

/**
 * No sandbox: commands run as this user in a fresh temp directory, with a scrubbed environment.
 * Fast and dependency free, but a command can read and write anything this user can.
 */
export class LocalTerminal extends HostTerminal {
  readonly kind = 'local';
  private readonly shell: string;
  private id = '';

  constructor(options: LocalTerminalOptions = {}) {
    super(options);
    this.shell = options.shell ?? defaultShell();
  }

  protected async prepare(workdir: string): Promise<HostFiles> {
    this.id = randomBytes(8).toString('hex');
    this.lease?.markProcesses(TERMINAL_ID_VARIABLE, this.id);
    this.pathFirst = pythonBinDirs(await pythonInstall(this.python));
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
    await killMarkedProcesses(this.id);
  }
}
