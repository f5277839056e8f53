import { accessSync, constants } from 'node:fs';

/**
 * How a command is started: `<shell> -c WRAPPER <shell> <cwd> <command>`. The wrapper merges
 * stderr into stdout at the file-descriptor level (so the two stay in order), changes directory,
 * then hands the untouched command string to a fresh shell.
 */

export interface LaunchOptions {
  cwd: string;
  command: string;
  /** Interactive program in a PTY: echo off instead of merging stderr. */
  session?: boolean;
}

let detectedShell: string | undefined;

/** `/bin/bash` when present, else `/bin/sh`. */
export function defaultShell(): string {
  if (detectedShell) return detectedShell;
  try {
    accessSync('/bin/bash', constants.X_OK);
    detectedShell = '/bin/bash';
  } catch {
    detectedShell = '/bin/sh';
  }
  return detectedShell;
}

function isBash(shell: string): boolean {
  return shell.endsWith('/bash');
}

export function shellArgv(shell: string, options: LaunchOptions): string[] {
  const flags = isBash(shell) ? ['--noprofile', '--norc'] : [];
  const inner = `"$0" ${flags.join(' ')} -c "$2"`;
  const steps = [options.session ? 'stty -echo 2>/dev/null' : 'exec 2>&1'];
  steps.push('cd -- "$1" || exit 1');
  steps.push(`exec ${inner}`);
  return [shell, ...flags, '-c', steps.join('; '), shell, options.cwd, options.command];
}
