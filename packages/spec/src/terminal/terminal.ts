/**
 * The sandbox contract every terminal backend (local PTY, bubblewrap, Docker, later Kubernetes)
 * implements. Tools only ever talk to a sandbox through this interface, so one tool behaves the
 * same on every backend.
 *
 * Paths given to these methods are paths *inside the sandbox*; relative paths are relative to
 * `workdir`.
 */

/** Module groups a fork server preloads, in this order (a later group may use an earlier one). */
export type ForkGroup = 'pytest' | 'pdb';

/**
 * Says that a command is exactly `<python> <args…>` (the terminal's interpreter; these arguments are
 * what the shell makes of the rest), so a terminal with a fork server may start it by forking a warm
 * interpreter instead. The command string is still what runs when it does not (the cold path).
 */
export interface PythonLaunch {
  /** `['/tmp/…/launch.py', '-sq', '.']`, `['-c', program, '-m', 'pytest', '-sq', '.']`, `['-m', 'pytest']`. */
  args: readonly string[];
  /**
   * The groups the program imports from outside the working copy before any code of the repository
   * runs: `[]`, `['pytest']` or `['pytest', 'pdb']` (a prefix of the preload order). The child keeps
   * those modules and forgets every other preloaded one. With `['pytest']` the program calls
   * `pytest.main` before it looks at anything else of pytest: its first `_pytest.config.get_config`
   * may return a configuration the fork server built ahead (equal to a fresh one).
   */
  uses: readonly ForkGroup[];
}

/** How a process was started: forked by the sandbox's fork server, or the cold command (and why). */
export interface LaunchInfo {
  via: 'fork-server' | 'cold';
  /** Why the fork server did not start it (when `via` is `cold`). */
  reason?: string;
  /** It was a child the fork server had forked ahead (`ForkServerOptions.standbys`). */
  standby?: boolean;
}

/** What a terminal's fork server answered when it started. */
export interface ForkServerStatus {
  ready: boolean;
  /** Why it is not ready (disabled, the interpreter has no pytest, ...). */
  reason?: string;
  /** Python version of the server. */
  python?: string;
  /** Groups preloaded, and those that could not be (with why: a child that needs them runs cold). */
  groups?: ForkGroup[];
  problems?: Record<string, string>;
}

export interface ForkServerOptions {
  /** The groups to import once (default `['pytest', 'pdb']`). */
  preload?: readonly ForkGroup[];
  /**
   * Keep a child forked ahead for each kind of run, already set up and with the server's pages it
   * will write already copied, so a run skips that work (default true; false saves the memory:
   * about 20 MB a standby). A terminal may ignore it.
   */
  standbys?: boolean;
}

export interface RunOptions {
  /** Time limit in milliseconds; the whole process group is killed when it runs out. Default: the terminal's default timeout. */
  timeoutMs?: number;
  /** Extra environment variables for this command only. */
  env?: Record<string, string>;
  /** Working directory inside the sandbox (default: `workdir`). */
  cwd?: string;
  /** Data written to the command's stdin. */
  input?: string;
  /** The command is `<python> ARGS`: it may be forked by the fork server (see `Terminal.startForkServer`). */
  python?: PythonLaunch;
}

export interface RunResult {
  /** Exit code, or null when the command was killed (timeout, signal). */
  exitCode: number | null;
  /** stdout and stderr interleaved, decoded as UTF-8 with replacement, ANSI escapes and `\r` removed, capped at `maxOutputBytes`. */
  output: string;
  /** The command ran past its timeout and was killed. */
  timedOut: boolean;
  /** Bytes of output dropped after the cap (0 when nothing was dropped). */
  droppedBytes: number;
  /** Wall time in milliseconds. */
  durationMs: number;
  /** Set when the run was given `python`: which path ran. */
  launch?: LaunchInfo;
}

export interface SessionOptions {
  /** Text that marks "ready for the next line", e.g. `(Pdb) `. Reads return when it appears. */
  prompt: string;
  /** Default per-read time limit in milliseconds. */
  timeoutMs?: number;
  env?: Record<string, string>;
  cwd?: string;
  /** The command is `<python> ARGS`: it may be forked by the fork server. */
  python?: PythonLaunch;
}

export interface SessionReadResult {
  /** Output since the last read, prompt excluded, normalized like `RunResult.output`. */
  output: string;
  /** The same text before normalization (kept for trajectories). */
  rawOutput: string;
  /** The read ended because the prompt appeared. */
  promptSeen: boolean;
  /** The read ended because the time limit ran out (the process may still be busy). */
  timedOut: boolean;
  /** The session's process has exited. */
  exited: boolean;
  exitCode: number | null;
  droppedBytes: number;
}

/** An interactive program (pdb) running in a PTY inside the sandbox. */
export interface TerminalSession {
  readonly id: string;
  /** True once the process has exited or `close()` was called. */
  readonly closed: boolean;
  /** Set when the session was opened with `python`: which path ran. */
  readonly launch?: LaunchInfo;
  /** Read until the prompt, the process exits, or the timeout. */
  read(options?: { timeoutMs?: number }): Promise<SessionReadResult>;
  /** Write `line` plus a newline, then read until the prompt. Throws SessionClosedError on a closed session. */
  send(line: string, options?: { timeoutMs?: number }): Promise<SessionReadResult>;
  /** Send Ctrl-C and read until the prompt (or the timeout). */
  interrupt(options?: { timeoutMs?: number }): Promise<SessionReadResult>;
  /** Kill the process (and its process group) and release the PTY. Idempotent. */
  close(): Promise<void>;
}

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface DirEntry {
  name: string;
  type: FileType;
  /** For files: any execute bit is set. */
  executable: boolean;
}

export interface FileStat {
  type: FileType;
  size: number;
  executable: boolean;
}

export interface ReadFileOptions {
  /**
   * Refuse (FileTooLargeError) a file larger than this many bytes, checked on the open file before
   * reading and enforced while reading, so a file that grows meanwhile is never read past it.
   */
  maxBytes?: number;
}

/** File access to the working copy, served by the backend (host fs, or a helper inside the container). */
export interface TerminalFiles {
  /** Throws a PathNotFoundError when missing, a FileTooLargeError above `options.maxBytes`. */
  readFile(path: string, options?: ReadFileOptions): Promise<Uint8Array>;
  /** Creates missing parent directories. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Entries of one directory, unsorted. Throws PathNotFoundError / NotADirectoryError. */
  readDir(path: string): Promise<DirEntry[]>;
  /** Does not follow a final symlink (lstat). Null when missing. */
  stat(path: string): Promise<FileStat | null>;
  /** Canonical path with every symlink resolved; throws PathNotFoundError when missing. */
  realPath(path: string): Promise<string>;
  /** Copy the *contents* of a host directory into `targetDir` inside the sandbox. */
  copyIn(hostDir: string, targetDir?: string): Promise<void>;
  /** Remove a file or directory tree (no error when missing). */
  remove(path: string): Promise<void>;
}

export type TerminalKind = 'local' | 'bubblewrap' | 'docker' | (string & {});

export interface Terminal extends TerminalFiles {
  readonly kind: TerminalKind;
  /** Absolute path of the working copy inside the sandbox. Valid after `start()`. */
  readonly workdir: string;
  /** The Python interpreter command inside the sandbox (a config value: never assume which python runs). */
  readonly python: string;
  /** True between `start()` and `close()`. */
  readonly started: boolean;
  /** Start a fresh sandbox with an empty `workdir`. Calling it again closes the previous one first. */
  start(): Promise<void>;
  /** Run one shell command (`/bin/sh -c`-like, bash when present) to completion. */
  run(command: string, options?: RunOptions): Promise<RunResult>;
  /** Start an interactive program in a PTY; call `read()` for its start-up output. */
  openSession(command: string, options: SessionOptions): Promise<TerminalSession>;
  /** Kill every process, remove the sandbox and its working copy. Idempotent. */
  close(): Promise<void>;
  /**
   * Optional. Start the sandbox's fork server: one Python process that imports `preload` once (never
   * the repository's code), so later `run`/`openSession` calls given `python` fork it instead of
   * starting Python again. Resolves once it is ready or failed (never rejects); a call before it is
   * ready waits for it. The server goes with the sandbox (`start()` again, `close()`).
   */
  startForkServer?(options?: ForkServerOptions): Promise<ForkServerStatus>;
  /**
   * Optional. A new, started sandbox of the same kind and options whose working copy is a copy of
   * this one's (copy-on-write where the file system allows, else a fast copy), for `env.fork()`.
   * Nothing else is carried over: no processes, no fork server (start one on the copy).
   */
  fork?(): Promise<Terminal>;
  /**
   * Optional. Stop every process in the sandbox that debug-gym did not start for itself (the agent's
   * sessions with all their threads, what its commands left running) until `resume()` is called, so
   * that nothing the agent left behind runs while a score is decided: the env pauses around every
   * scoring run (protected files restored, tests run). Backends whose commands run on the host
   * (local) do not offer it.
   */
  pauseProcesses?(): Promise<PausedProcesses>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** What `Terminal.pauseProcesses()` stopped. */
export interface PausedProcesses {
  /** Processes stopped. */
  readonly paused: number;
  /** Processes that would not stop in time (uninterruptible sleep) and were killed instead. */
  readonly killed: number;
  /** Continue what was stopped (not what the agent had stopped itself). Idempotent. */
  resume(): Promise<void>;
}

/** Options every backend accepts. */
export interface TerminalOptions {
  /** Interpreter inside the sandbox (default: `DEBUG_GYM_PYTHON` or `python3`). */
  python?: string;
  /** Default command timeout in milliseconds (default 300 000). */
  defaultTimeoutMs?: number;
  /** Output kept per command/read before dropping the rest (default 1 MB). */
  maxOutputBytes?: number;
  /** Extra environment variables for every command (the host environment is never inherited wholesale). */
  env?: Record<string, string>;
}
