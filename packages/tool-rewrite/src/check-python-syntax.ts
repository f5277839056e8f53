import { DebugGymError, type LaunchInfo, type PythonLaunch, type Terminal } from '@debug-gym/spec';

const MARKER = 'DEBUG_GYM_SYNTAX_ERROR';

/**
 * Compiles (never runs) the source read from stdin. `compile` on bytes honours coding cookies and
 * BOMs, and catches what `ast.parse` misses (`return` outside a function, bad `nonlocal`).
 * It first takes `''` (the working copy) off `sys.path`: a repository's `warnings.py` or
 * `traceback.py` must not run inside the check and write its report.
 * No single quotes: the script travels inside a single-quoted shell argument.
 */
const SCRIPT = [
  'import sys',
  'sys.path[:1] == [""] and sys.path.pop(0)',
  'import warnings',
  'warnings.simplefilter("ignore")',
  'try:',
  '    compile(sys.stdin.buffer.read(), sys.argv[1], "exec", dont_inherit=True)',
  'except (SyntaxError, ValueError) as error:',
  '    import traceback',
  `    sys.stdout.write("${MARKER}\\n" + "".join(traceback.format_exception_only(type(error), error)))`,
].join('\n');

/** Quote one shell word. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A `python -c PROGRAM ARGS` the terminal's fork server may start instead of the cold command. The
 * cold command's `-S` and `-W ignore` only make a cold start faster and quieter; the programs here
 * import only the standard library (with the working copy off `sys.path`) and silence warnings
 * themselves, so both paths print the same.
 */
function forkable(fork: boolean, args: string[]): { python?: PythonLaunch } {
  return fork ? { python: { args, uses: [] } } : {};
}

/**
 * Check Python source with the sandbox's interpreter (`-S`: no site import, for a fast start; forked
 * from the terminal's fork server when `fork` is set and it has one).
 * Returns Python's own report of the first syntax error (`  File "x.py", line 4` ... `SyntaxError: ...`),
 * or null when the source compiles or the check could not run.
 */
export async function checkPythonSyntax(terminal: Terminal, python: string, source: string, displayPath: string, fork = false): Promise<string | null> {
  return (await syntaxCheck(terminal, python, source, displayPath, fork)).report;
}

async function syntaxCheck(terminal: Terminal, python: string, source: string, displayPath: string, fork: boolean): Promise<{ report: string | null; launch?: LaunchInfo }> {
  const command = `${python} -S -W ignore -c ${shellQuote(SCRIPT)} ${shellQuote(displayPath)}`;
  const { output, launch } = await runQuietly(terminal, command, { input: source, ...forkable(fork, ['-c', SCRIPT, displayPath]) });
  const at = output === null ? -1 : output.indexOf(MARKER);
  const report = output === null || at < 0 ? null : trimLeadingNewlines(output.slice(at + MARKER.length)).trimEnd();
  return launch ? { report, launch } : { report };
}

/** The text without its leading newlines (a scan, linear whatever the text). */
function trimLeadingNewlines(text: string): string {
  let start = 0;
  while (text.charCodeAt(start) === 0x0a) start += 1;
  return text.slice(start);
}

/** Output of a command that exited 0, or null (failed, killed, or the terminal refused). A dead sandbox still throws. */
async function runQuietly(terminal: Terminal, command: string, options: { input?: string; python?: PythonLaunch }): Promise<{ output: string | null; launch?: LaunchInfo }> {
  try {
    const result = await terminal.run(command, { timeoutMs: 15_000, ...options });
    const output = result.exitCode === 0 ? result.output : null;
    return result.launch ? { output, launch: result.launch } : { output };
  } catch (error) {
    if (DebugGymError.hasCode(error, 'DG_TERMINAL_UNRECOVERABLE')) throw error;
    return { output: null };
  }
}

/**
 * The real interpreter behind `python` (its `sys.executable`), so that each check skips launchers
 * such as pyenv shims, which cost ~300 ms per start. Falls back to `python` itself.
 */
export async function resolveInterpreter(terminal: Terminal, python: string, fork = false): Promise<string> {
  const program = 'import sys; sys.stdout.write(sys.executable)';
  const { output } = await runQuietly(terminal, `${python} -S -c ${shellQuote(program)}`, forkable(fork, ['-c', program]));
  const executable = output?.trim() ?? '';
  return executable.startsWith('/') && !/\s/.test(executable) ? executable : python;
}

/**
 * Syntax checks for one tool instance. A cold check needs the interpreter behind `python` (resolved
 * once per episode); a forked one does not, so it is resolved only once a check has had to start cold.
 */
export class SyntaxChecker {
  private interpreter: Promise<string> | undefined;

  async check(terminal: Terminal, python: string, source: string, displayPath: string, fork = false): Promise<string | null> {
    if (!fork) this.interpreter ??= resolveInterpreter(terminal, python);
    const { report, launch } = await syntaxCheck(terminal, this.interpreter ? await this.interpreter : python, source, displayPath, fork);
    // In the background: a sandbox that died meanwhile is reported by the next check's own run.
    if (launch?.via !== 'fork-server') this.interpreter ??= resolveInterpreter(terminal, python, fork).catch(() => python);
    return report;
  }

  /** Forget the interpreter (a reset may bring a new sandbox). */
  reset(): void {
    this.interpreter = undefined;
  }
}
