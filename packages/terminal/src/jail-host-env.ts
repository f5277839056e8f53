import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { SYSTEM_PATH } from './sandbox-env.js';

/**
 * Variables that programs on the host act on before the jail exists: the dynamic loader's
 * (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `GCONV_PATH`, ... — glibc's list for privileged programs),
 * the shell's, and `PATH` (which program `bwrap` is). A sandbox's `env` is its user's to choose,
 * so these reach the jail through bwrap's `--setenv`, never the environment bwrap itself and the
 * cgroup launcher start with: an `LD_PRELOAD` of a file the agent wrote must not load on the host.
 */
const HOST_ACTED = /^(?:LD_\w*|GCONV_PATH|GETCONF_DIR|GLIBC_TUNABLES|HOSTALIASES|LOCALDOMAIN|LOCPATH|MALLOC_\w*|NIS_PATH|NLSPATH|RESOLV_HOST_CONF|RES_OPTIONS|TZDIR|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|IFS|CDPATH|PATH)$/;

/** The host-side environment of a jail with `env` inside, and the bwrap options that set the rest inside. */
export function splitJailEnv(env: Readonly<Record<string, string>>): { host: Record<string, string>; setenv: string[] } {
  const host: Record<string, string> = {};
  const setenv: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (HOST_ACTED.test(name)) setenv.push('--setenv', name, value);
    else host[name] = value;
  }
  host.PATH = SYSTEM_PATH;
  return { host, setenv };
}

/** `program` as an absolute path, looked up on the server's own PATH (unchanged when not found: spawn reports it). */
export function hostProgram(program: string, path: string = process.env.PATH ?? SYSTEM_PATH): string {
  if (program.includes('/')) return program;
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, program);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return program;
}
