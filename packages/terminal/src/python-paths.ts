import { execFile } from 'node:child_process';
import { access, constants, realpath } from 'node:fs/promises';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

const PROBE = 'import sys, json; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, sys.executable]))';
const PROBE_TIMEOUT_MS = 30_000;

export interface PythonInstall {
  /** The real interpreter behind the configured name (a pyenv shim resolved); undefined when not found. */
  executable?: string;
  /** Host directories it needs: its prefixes, and the pyenv root behind a shim. */
  paths: string[];
}

const cache = new Map<string, Promise<PythonInstall>>();

/**
 * Where the configured Python really lives on this host, found once per process with the host's
 * PATH and pyenv settings, so the sandbox needs neither: it gets the interpreter's bin dir on its
 * PATH and, when it hides most of the host, the directories in `paths`.
 */
export function pythonInstall(python: string, host: NodeJS.ProcessEnv = process.env): Promise<PythonInstall> {
  const env = pick(host, ['PATH', 'HOME', 'PYENV_ROOT', 'PYENV_VERSION']);
  const key = [python, env.PATH, env.PYENV_ROOT, env.PYENV_VERSION].join('\0');
  let install = cache.get(key);
  if (!install) {
    install = discover(python, env);
    cache.set(key, install);
  }
  return install;
}

/** The bin dirs to put first on a sandbox's PATH for `install`. */
export function pythonBinDirs(install: PythonInstall): string[] {
  return install.executable ? [dirname(install.executable)] : [];
}

async function discover(python: string, env: Record<string, string>): Promise<PythonInstall> {
  const command = await findExecutable(python, env.PATH ?? '');
  if (!command) return { paths: [] };
  const paths = new Set<string>();
  const pyenvRoot = env.PYENV_ROOT;
  if (pyenvRoot && command.startsWith(`${pyenvRoot}/`)) paths.add(pyenvRoot);
  paths.add(dirname(dirname(await realpath(command).catch(() => command))));
  const reported = await new Promise<string[]>((resolve) => {
    execFile(command, ['-c', PROBE], { env, cwd: '/', timeout: PROBE_TIMEOUT_MS }, (error, stdout) => {
      if (error) return resolve([]);
      try {
        resolve(JSON.parse(stdout) as string[]);
      } catch {
        resolve([]);
      }
    });
  });
  const [executable, ...prefixes] = reported.reverse();
  for (const prefix of prefixes) if (prefix) paths.add(await realpath(prefix).catch(() => prefix));
  // Not realpath'd: a venv's python is a symlink whose bin dir (with pip, pytest) is the one to use.
  const real = executable || command;
  paths.add(dirname(dirname(await realpath(real).catch(() => real))));
  return { executable: real, paths: [...paths] };
}

function pick(host: NodeJS.ProcessEnv, names: string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) if (host[name]) env[name] = host[name] as string;
  return env;
}

async function findExecutable(command: string, path: string): Promise<string | undefined> {
  const candidates = command.includes('/') ? [command] : path.split(delimiter).filter(isAbsolute).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // next
    }
  }
  return undefined;
}
