/**
 * The mini-nightmare task the suite runs on, read straight from its folder (the same rules as the
 * original: entrypoint `python -m pytest --tb=no -s test.py`, `*test*.py` read-only), plus the places
 * the scripted steps point at (a code file, a function, a line inside it).
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const MINI_NIGHTMARE_ENTRYPOINT = 'python -m pytest --tb=no -s test.py';

export interface PerfTask {
  id: string;
  path: string;
  entrypoint: string;
  readonlyPatterns: string[];
  /** The buggy module, e.g. `config_code.py`. */
  codeFile: string;
  codeLines: number;
  /** A `def` line: the one-line rewrite appends a comment to it (same code, new text). */
  defLine: number;
  defText: string;
  /** The first statement inside that function: where the breakpoint goes. */
  breakLine: number;
  /** An expression valid in that frame (the function's first argument after `self`). */
  expression: string;
  /** A word `grep` finds in the code file. */
  grepPattern: string;
}

export function listTasks(dataPath: string): string[] {
  if (!existsSync(dataPath)) return [];
  return readdirSync(dataPath)
    .filter((name) => statSync(join(dataPath, name)).isDirectory() && existsSync(join(dataPath, name, 'test.py')))
    .sort();
}

export function loadTask(dataPath: string, id: string): PerfTask {
  const path = join(dataPath, id);
  if (!existsSync(join(path, 'test.py'))) {
    const known = listTasks(dataPath);
    const hint = known.length ? `Known tasks: ${known.join(', ')}.` : `No mini-nightmare tasks were found in ${dataPath} (use --data-path).`;
    throw new Error(`No mini-nightmare task '${id}' at ${path}. ${hint}`);
  }
  const codeFile = `${id}_code.py`;
  if (!existsSync(join(path, codeFile))) throw new Error(`Task '${id}' has no ${codeFile}.`);
  const lines = readFileSync(join(path, codeFile), 'utf8').split('\n');
  const defIndex = lines.findIndex((line) => /^\s*def \w+\(.*\):\s*$/.test(line));
  if (defIndex < 0) throw new Error(`${codeFile} has no one-line \`def\` to put a breakpoint in.`);
  const defText = lines[defIndex] as string;
  let bodyIndex = defIndex + 1;
  while (bodyIndex < lines.length && isSkippable(lines[bodyIndex] as string)) bodyIndex += 1;
  if (bodyIndex >= lines.length) throw new Error(`${codeFile}: the function at line ${defIndex + 1} has no body.`);
  const params = parenthesized(defText)
    .split(',')
    .map((param) => param.split(/[=:]/)[0]?.trim() ?? '')
    .filter((param) => param && param !== 'self' && param !== 'cls' && !param.startsWith('*'));
  const functionName = /def (\w+)/.exec(defText)?.[1] ?? 'def';
  return {
    id,
    path,
    entrypoint: MINI_NIGHTMARE_ENTRYPOINT,
    readonlyPatterns: ['*test*.py'],
    codeFile,
    codeLines: lines.length,
    defLine: defIndex + 1,
    defText,
    breakLine: bodyIndex + 1,
    expression: params[0] ?? 'len(dir())',
    grepPattern: functionName,
  };
}

/** Blank lines, comments and a docstring's first line are not where pdb can stop. */
function isSkippable(line: string): boolean {
  const text = line.trim();
  return text === '' || text.startsWith('#') || text.startsWith('"""') || text.startsWith("'''");
}

/** What lies between a line's first `(` and its last `)` (as `/\((.*)\)/`, without its quadratic scan), or ''. */
function parenthesized(line: string): string {
  const open = line.indexOf('(');
  const close = line.lastIndexOf(')');
  return open >= 0 && close > open ? line.slice(open + 1, close) : '';
}
