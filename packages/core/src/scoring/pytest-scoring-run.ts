import { randomBytes } from 'node:crypto';
import type { RunResult, Terminal } from '@debug-gym/spec';
import { splitShellWords } from '@debug-gym/plugin-kit';
import { PYTEST_LAUNCHER_SOURCE } from './pytest-launcher-source.js';
import type { PytestReport } from '@debug-gym/spec';
import { parsePytestReportBytes } from './pytest-report.js';

const MAX_REPORT_BYTES = 64 * 1024 * 1024;

export interface PytestScoringRunOptions {
  /** The pytest arguments (what follows `-m pytest`), e.g. ` -sq .`. */
  args: string;
  /** Configuration / plugin files the pristine repository has (kept in place; any other is set aside). */
  keep: readonly string[];
  /**
   * Plugins from the working copy the pristine run loaded ([name, path]); any other is tampering.
   * Null on the pristine run itself, which records them.
   */
  plugins: ReadonlyArray<readonly [string, string]> | null;
  /** The pristine repository's symlinks (relative path -> target): any other is taken out for the run. */
  links: Readonly<Record<string, string>>;
  /** Test folders whose files not in `treeFiles` are set aside for the run (see PristineInventory.trees). Default none. */
  trees?: readonly string[];
  /** The pristine repository's files in `trees`. */
  treeFiles?: ReadonlySet<string>;
  /** The pristine repository's files named like a test folder's module; with `trees`, any other is set aside. Null or absent: no such rule. */
  shadowFiles?: ReadonlySet<string> | null;
  /**
   * Files the pristine run's hook implementations came from (relative inside the working copy, real
   * paths outside), besides pytest's and pluggy's own. Null on the pristine run (which records them)
   * and when there was none (then only the pristine configuration files are trusted).
   */
  hookFiles: readonly string[] | null;
  /** The configuration file the pristine run read ('' for none; relative inside the working copy), null when unknown. */
  inipath: string | null;
  timeoutMs: number;
  /** Let the terminal's fork server start the launcher (when the arguments are plain words). Default false. */
  fork?: boolean;
}

export interface PytestScoringRun {
  run: RunResult;
  /** Null when the report file is missing or unreadable (the process died before pytest started reporting). */
  report: PytestReport | null;
}

/**
 * One pytest run through debug-gym's launcher: a fresh random directory under the sandbox's /tmp
 * (outside the working copy) holds the launcher and receives the report, which is read back through
 * the terminal and deleted with the directory.
 */
export async function runPytestScoring(terminal: Terminal, options: PytestScoringRunOptions): Promise<PytestScoringRun> {
  const token = randomBytes(12).toString('hex');
  const dir = `/tmp/debug-gym-score-${token}`;
  // The launcher derives the report's and the record's paths and the set-aside suffix from its directory.
  const paths = { report: `${dir}/report.jsonl`, moved: `${dir}/moved.json` };
  const manifest = {
    keep: options.keep,
    plugins: options.plugins,
    links: options.links,
    trees: options.trees ?? [],
    treeFiles: [...(options.treeFiles ?? [])],
    shadowFiles: options.shadowFiles ? [...options.shadowFiles] : null,
    hookFiles: options.hookFiles,
    inipath: options.inipath,
  };
  const source = PYTEST_LAUNCHER_SOURCE.replace('__MANIFEST__', () => JSON.stringify(JSON.stringify(manifest)));
  await terminal.writeFile(`${dir}/launch.py`, source);
  let removal: Promise<void> | undefined;
  try {
    const words = options.fork ? splitShellWords(options.args) : null;
    const python = words ? { python: { args: [`${dir}/launch.py`, ...words], uses: ['pytest'] as const } } : {};
    const run = await terminal.run(`${terminal.python} ${dir}/launch.py${options.args}`, { timeoutMs: options.timeoutMs, ...python });
    const report = await readReport(terminal, paths.report);
    // A launcher that finished put the set-aside files back itself (its `finally`); only one that was
    // killed or left early (a timeout, `os._exit`) leaves them for us.
    if (!report?.finished || run.timedOut || run.exitCode !== report.finished.exitstatus) await putBack(terminal, paths.moved);
    else removal = terminal.remove(dir).catch(() => undefined);
    return { run, report };
  } finally {
    // In the background when the run went normally: the next call waits for nothing it needs.
    if (!removal) await terminal.remove(dir).catch(() => undefined);
  }
}

async function readReport(terminal: Terminal, path: string): Promise<PytestReport | null> {
  try {
    return await parsePytestReportBytes(await terminal.readFile(path, { maxBytes: MAX_REPORT_BYTES }));
  } catch {
    return null;
  }
}

/** The launcher puts set-aside files back itself; this covers a launcher killed first (timeout). */
async function putBack(terminal: Terminal, movedPath: string): Promise<void> {
  if (!(await terminal.stat(movedPath).catch(() => null))) return;
  let moved: { renamed?: unknown; links?: unknown };
  try {
    moved = JSON.parse(Buffer.from(await terminal.readFile(movedPath, { maxBytes: 16 * 1024 * 1024 })).toString('utf8')) as typeof moved;
  } catch {
    return;
  }
  const count = (list: unknown): number => (Array.isArray(list) ? list.length : 0);
  if (count(moved?.renamed) + count(moved?.links) === 0) return;
  const script = [
    'import json,os',
    `moved=json.load(open(${JSON.stringify(movedPath)}))`,
    "for a,b in moved.get('renamed', []):",
    '    if os.path.lexists(b) and not os.path.lexists(a): os.rename(b,a)',
    "for a,t in moved.get('links', []):",
    '    if not os.path.lexists(a): os.symlink(t,a)',
    '',
  ].join('\n');
  await terminal.run(`${terminal.python} -I -S -c '${script.replace(/'/g, `'\\''`)}'`, { timeoutMs: 30_000 });
}
