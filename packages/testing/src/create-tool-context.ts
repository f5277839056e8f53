import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  BreakpointStore,
  TEST_ARTEFACTS,
  Workspace,
  normalizeEntrypoint,
  defaultDebugEntrypoint,
  pytestScorer,
  type EnvSettings,
  type EnvState,
  type EvalResult,
  type RewriteEvent,
  type Terminal,
  type ToolContext,
} from '@debug-gym/core';
import { LocalTerminal } from '@debug-gym/terminal';

/** The repository a test works on: `{ 'path/in/repo': 'content' }`. */
export type RepositoryFiles = Readonly<Record<string, string | Uint8Array>>;

export interface TestContextOptions {
  /** Files of the working copy. Default: none (an empty repository). */
  files?: RepositoryFiles;
  /** A started-or-not terminal to use instead of a local one (e.g. a sandbox backend). Closed with the context. */
  terminal?: Terminal;
  /** Interpreter of the local terminal. Default: `DEBUG_GYM_PYTHON`, else `python3`. */
  python?: string;
  /** Test command `context.evaluate()` runs. Default `python -m pytest -sq .`. */
  entrypoint?: string;
  /** Command the debugger runs. Default: the entrypoint under `python -m pdb`. */
  debugEntrypoint?: string;
  /** Seconds one command may run. Default 20. */
  runTimeout?: number;
  /** Default 40 000. */
  maxOutputChars?: number;
  /** Hidden paths (gitignore syntax) on top of the repository's `.debugignore`. */
  ignorePatterns?: readonly string[];
  /** Read-only paths on top of the repository's `.debugreadonly`. */
  readonlyPatterns?: readonly string[];
}

/** A real ToolContext over a temporary working copy, plus what a test wants to look at afterwards. */
export interface TestToolContext extends ToolContext, AsyncDisposable {
  /** Core's real breakpoint store: besides what a tool sees, a test can `add` and `remove` breakpoints. */
  readonly breakpoints: BreakpointStore;
  /** The host folder the files were written to (copied into the terminal's working copy). */
  readonly repository: string;
  /** Rewrite events the tool announced with `context.emit()`, in order. */
  readonly emitted: readonly RewriteEvent[];
  /** Every `context.evaluate()` result, in order. */
  readonly evaluations: readonly EvalResult[];
  /** The reason passed to `context.terminate()`, or null. */
  readonly terminatedWith: string | null;
  /** A file of the working copy as text, read directly (not through the workspace's rules). */
  readFile(path: string): Promise<string>;
  /** Close the terminal and remove the temporary folders. Idempotent. */
  close(): Promise<void>;
}

/** Write `files` into a fresh temporary folder and return its path. */
export function writeRepository(files: RepositoryFiles): string {
  const root = mkdtempSync(join(tmpdir(), 'debug-gym-testing-'));
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return root;
}

/**
 * A started ToolContext built from core's own pieces: a Workspace (path safety, `.debugignore`,
 * `.debugreadonly`), a BreakpointStore that follows emitted rewrites, and a local terminal (no sandbox)
 * whose working copy holds `files`. `evaluate()` runs the entrypoint and scores it like the env does.
 */
export async function createToolContext(options: TestContextOptions = {}): Promise<TestToolContext> {
  const repository = writeRepository(options.files ?? {});
  const terminal = options.terminal ?? new LocalTerminal({ python: options.python ?? process.env.DEBUG_GYM_PYTHON ?? 'python3' });
  try {
    await terminal.start();
    await terminal.copyIn(repository, terminal.workdir);
  } catch (error) {
    await terminal.close().catch(() => undefined);
    rmSync(repository, { recursive: true, force: true });
    throw error;
  }
  const workspace = new Workspace(terminal, {
    ignorePatterns: [...TEST_ARTEFACTS, ...(options.ignorePatterns ?? [])],
    ...(options.readonlyPatterns ? { readonlyPatterns: options.readonlyPatterns } : {}),
  });
  await workspace.loadRules();
  const entrypoint = normalizeEntrypoint(options.entrypoint ?? 'python -m pytest -sq .', terminal.python);
  const settings: EnvSettings = {
    entrypoint,
    debugEntrypoint: options.debugEntrypoint ? normalizeEntrypoint(options.debugEntrypoint, terminal.python) : defaultDebugEntrypoint(entrypoint, terminal.python),
    python: terminal.python,
    runTimeoutMs: (options.runTimeout ?? 20) * 1000,
    maxOutputChars: options.maxOutputChars ?? 40_000,
    // No fork server is started here: every Python a tool starts runs cold, as the env's would with forkServer: false.
    forkServer: false,
  };
  const state: EnvState = { stepCount: 0, rewriteCount: 0, lastEval: null, score: 0, maxScore: null };
  const breakpoints = new BreakpointStore();
  const emitted: RewriteEvent[] = [];
  const evaluations: EvalResult[] = [];
  let terminatedWith: string | null = null;
  let closed = false;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await terminal.close();
    rmSync(repository, { recursive: true, force: true });
  };

  return {
    repository,
    workspace,
    terminal,
    breakpoints,
    settings,
    state,
    emitted,
    evaluations,
    get terminatedWith() {
      return terminatedWith;
    },
    async evaluate(): Promise<EvalResult> {
      const run = await terminal.run(settings.entrypoint, { timeoutMs: settings.runTimeoutMs });
      const scored = pytestScorer({ ...run, timeoutMs: settings.runTimeoutMs });
      const result: EvalResult = { ...scored, exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs };
      Object.assign(state, { lastEval: result, score: result.score, maxScore: result.maxScore ?? state.maxScore });
      evaluations.push(result);
      return result;
    },
    emit(event: RewriteEvent): void {
      emitted.push(event);
      state.rewriteCount += 1;
      workspace.invalidate();
      breakpoints.shift(event.path, event.start, event.end, event.newLineCount);
    },
    terminate(reason: string): void {
      terminatedWith ??= reason;
    },
    async readFile(path: string): Promise<string> {
      const absolute = path.startsWith('/') ? path : `${trimTrailingSlashes(terminal.workdir)}/${path}`;
      return new TextDecoder().decode(await terminal.readFile(absolute));
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The path without its trailing slashes (a scan: `/\/+$/` is quadratic on a run of slashes inside the text). */
function trimTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 0x2f) end -= 1;
  return path.slice(0, end);
}
