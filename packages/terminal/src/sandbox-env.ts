/**
 * The environment of every sandboxed command. The host environment is never inherited wholesale,
 * so secrets such as OPENAI_API_KEY cannot leak into the agent's commands.
 */

export interface SandboxEnvOptions {
  /** HOME inside the sandbox. */
  home: string;
  /** `dumb` for commands (no colours, no pagers), `xterm` for PTY sessions. */
  term: 'dumb' | 'xterm';
  /** Terminal-wide `env` option, then per-call `env`: later wins. */
  overrides?: Array<Record<string, string> | undefined>;
  /** Directories searched first (the configured interpreter's bin dir), before the system dirs. */
  pathFirst?: string[];
}

/** The system directories on every sandbox's PATH; the host's PATH is never passed in. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** PATH of a sandbox whose interpreter lives in `first` (deduplicated, order kept). */
export function sandboxPath(first: string[] = []): string {
  return [...new Set([...first, ...SYSTEM_PATH.split(':')])].join(':');
}

/**
 * Variables every sandboxed command and session gets, whatever the backend (the Docker backend
 * puts them on top of the image's own environment).
 */
export const SANDBOX_FIXED_ENV: Readonly<Record<string, string>> = {
  // Fixed rather than inherited: a host locale that is not installed in the sandbox makes bash
  // print setlocale warnings into every output.
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  NO_COLOR: '1',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  PYTHONDONTWRITEBYTECODE: '1',
  // The user site-packages lies under HOME, which the agent writes: a `.pth` or a pytest11 plugin
  // there would run in every later Python, the scoring runs included.
  PYTHONNOUSERSITE: '1',
  PYTHONSTARTUP: '',
  PYTHONUNBUFFERED: '1',
  PYTHONIOENCODING: 'utf-8',
  PS1: '$ ',
};

export function sandboxEnv(options: SandboxEnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: sandboxPath(options.pathFirst),
    HOME: options.home,
    ...SANDBOX_FIXED_ENV,
    TERM: options.term,
  };
  for (const extra of options.overrides ?? []) Object.assign(env, extra);
  return env;
}
