import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from '../config/config-error.js';

export interface TokenSources {
  /** `--token`: on the command line, so readable by every local user (`ps`, `/proc/PID/cmdline`). */
  flag?: string | undefined;
  /** `--token-file`: a file holding the token (a trailing newline is dropped). */
  file?: string | undefined;
  /** Environment variables to read, first set wins (e.g. DEBUG_GYM_TOKEN, then the older name). */
  envNames: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Where the warnings go (default stderr). */
  warn?: (text: string) => void;
}

/**
 * The bearer token of a server command: `--token-file`, else `--token` (with a warning: the command
 * line is public on this host), else the first environment variable set. Undefined when none is.
 */
export function resolveServerToken(sources: TokenSources): string | undefined {
  const warn = sources.warn ?? ((text: string): void => void process.stderr.write(`${text}\n`));
  if (sources.flag !== undefined && sources.file !== undefined) throw new ConfigError('Give the token once: --token-file or --token (better: --token-file or the DEBUG_GYM_TOKEN environment variable), not both.');
  if (sources.file !== undefined) return readTokenFile(sources.file, warn);
  // An empty token (the API's `token: ''`) is no token: the server then refuses a non-loopback address.
  if (sources.flag === '') return undefined;
  if (sources.flag !== undefined) {
    warn(
      'debug-gym: warning: --token puts the token on the command line, where every user of this machine can read it (ps, /proc/PID/cmdline). ' +
        `Pass it in the ${sources.envNames[0]} environment variable or with --token-file FILE instead.`,
    );
    return sources.flag;
  }
  const env = sources.env ?? process.env;
  for (const name of sources.envNames) if (env[name]) return env[name];
  return undefined;
}

function readTokenFile(file: string, warn: (text: string) => void): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError(`Cannot read the token file ${file}: ${(cause as Error).message}`);
  }
  const token = text.replace(/\r?\n$/, '');
  if (token === '' || /[\r\n]/.test(token)) throw new ConfigError(`The token file ${file} must hold the token on one line (it is ${token === '' ? 'empty' : 'several lines'}).`);
  // Group- or world-readable: other users of the machine could read it.
  if ((statSync(file).mode & 0o077) !== 0) warn(`debug-gym: warning: the token file ${file} is readable by other users; make it private: chmod 600 ${file}`);
  return token;
}
