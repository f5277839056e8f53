import { deflateSync } from 'node:zlib';
import { defaultDebugEntrypoint, splitShellWords } from '@debug-gym/plugin-kit';
import type { PythonLaunch } from '@debug-gym/spec';
import { HELPER_SOURCE } from './helper-source.generated.js';

let encoded: string | undefined;

/** Width the debugged program formats its output for (the original's 80-column PTY). */
const OUTPUT_COLUMNS = 80;

/** The driver, zlib-compressed and base64-encoded: shell-safe inside double quotes. */
function encodedHelper(): string {
  encoded ??= deflateSync(Buffer.from(HELPER_SOURCE, 'utf8'), { level: 9 }).toString('base64');
  return encoded;
}

/**
 * The `python -c` program that loads the driver without touching the sandbox's files. It drops
 * `''` from sys.path while importing (so a repository's `zlib.py` cannot interfere), executes the
 * driver in its own namespace (pdb replaces `__main__`'s), and calls its `main`. It has no shell
 * metacharacter, so it stays intact inside any double-quoted string of an entrypoint.
 */
export function bootstrapProgram(autoList: boolean): string {
  return [
    "import sys;p=sys.path;r=p[:1]==['']",
    'r and p.pop(0)',
    'import base64,zlib',
    "r and p.insert(0,'')",
    "g={'__name__':'dg_pdb'}",
    `exec(zlib.decompress(base64.b64decode('${encodedHelper()}')),g)`,
    `g['main'](${autoList ? 1 : 0},${OUTPUT_COLUMNS})`,
  ].join(';');
}

/**
 * The same, with the driver's source in the program itself rather than compressed: a fork server
 * compiles a `-c` program once for all its children, which then skip the driver's compile (~2.5 ms of
 * every pdb start). The driver is the body of a class inside a function that is never called: its
 * code object, a constant of that function's, runs in the driver's own namespace as a module body
 * would (a class body stores and looks names up in the namespace it is given; the driver defines
 * no method that uses `super()` or `__class__`). Used for the plain `<python> -m pdb …` form only,
 * whose shell command quotes it itself.
 */
export function inlineBootstrapProgram(autoList: boolean): string {
  const body = HELPER_SOURCE.trimEnd()
    .split('\n')
    .map((line) => (line ? `  ${line}` : line))
    .join('\n');
  return [
    'def dg_pdb_source():',
    ' class dg_pdb:',
    body,
    "g={'__name__':'dg_pdb'}",
    "exec([c for c in dg_pdb_source.__code__.co_consts if getattr(c,'co_name',None)=='dg_pdb'][0],g)",
    `g['main'](${autoList ? 1 : 0},${OUTPUT_COLUMNS})`,
  ].join('\n');
}

/** `text` as one shell word: single-quoted, each `'` written as `'\''`. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PDB_MODULE = /(^|\s)-m\s+pdb(?=\s|$)/;

export type HelperCommand =
  | {
      ok: true;
      command: string;
      /** The same command as a python launch a fork server may start (pytest under pdb, plain arguments only). */
      python?: PythonLaunch;
    }
  | { ok: false; reason: string };

/**
 * Turn a debug entrypoint (`python -m pdb -m pytest -sq .`, `python -m pdb app.py`, or a plain
 * `python …`/`pytest …` command, which gets `-m pdb` like the env's default) into the shell
 * command that runs the same program under the driver: `-m pdb` becomes `-c "<bootstrap>"`.
 */
export function helperCommand(entrypoint: string, python: string, autoList: boolean): HelperCommand {
  const debug = defaultDebugEntrypoint(entrypoint, python);
  const match = PDB_MODULE.exec(debug);
  if (!match) {
    return {
      ok: false,
      reason:
        `The entrypoint \`${entrypoint}\` does not run Python under pdb. ` +
        'Use a command like `python -m pdb -m pytest -sq .` or `python -m pdb path/to/script.py`.',
    };
  }
  const start = match.index + (match[1] ?? '').length;
  const before = debug.slice(0, start);
  const after = debug.slice(match.index + match[0].length);
  // `<python> -m pdb …` gets the inline driver (its shell word is ours to quote); an entrypoint that is
  // more than that (`cd sub && …`, a `bash -c "…"` around it) the compressed one, safe in any quotes.
  if (before !== `${python} `) return { ok: true, command: `${before}-c "${bootstrapProgram(autoList)}"${after}` };
  const program = inlineBootstrapProgram(autoList);
  const command = `${before}-c ${shellQuote(program)}${after}`;
  // Only `<python> -m pdb -m pytest …` forks: the server preloads what that program imports first.
  const words = splitShellWords(after);
  if (!words || words[0] !== '-m' || words[1] !== 'pytest') return { ok: true, command };
  return { ok: true, command, python: { args: ['-c', program, ...words], uses: ['pytest', 'pdb'] } };
}
