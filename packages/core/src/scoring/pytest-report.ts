/** How one test ended, as debug-gym's report plugin saw it. */
export type TestOutcome = 'passed' | 'failed' | 'error' | 'skipped' | 'xfailed' | 'xpassed';

/** What the report plugin wrote (see pytest-launcher-source.ts). */
export interface PytestReport {
  tests: Map<string, TestOutcome>;
  /** Node ids of modules (or other collectors) that failed to collect. */
  collectErrors: string[];
  /** The final record; null when the run ended before pytest finished (e.g. `os._exit(0)`). */
  finished: {
    exitstatus: number;
    /** Configuration / plugin files found in the working copy (relative paths). */
    candidates: string[];
    /** Those the run moved aside because the pristine repository did not have them. */
    setAside: string[];
    /** Plugins loaded from the working copy, as [name, relative path] (recorded on the pristine run only). */
    plugins: Array<[string, string]>;
    /** pytest's rootdir relative to the working copy (`.` normally): node ids are relative to it. */
    rootdir: string;
    /** Tampering the plugin detected; any entry scores the run 0. */
    tampered: string[];
  } | null;
}

const OUTCOMES = new Set<TestOutcome>(['passed', 'failed', 'error', 'skipped', 'xfailed', 'xpassed']);

/** Parse the report's JSON lines. Lines that do not parse (a truncated write) end the report unfinished. */
export function parsePytestReport(text: string): PytestReport {
  const report: PytestReport = { tests: new Map(), collectErrors: [], finished: null };
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      report.finished = null;
      break;
    }
    if (record.type === 'test' && typeof record.id === 'string' && OUTCOMES.has(record.outcome as TestOutcome)) {
      report.tests.set(record.id, record.outcome as TestOutcome);
    } else if (record.type === 'collect_error' && typeof record.id === 'string') {
      report.collectErrors.push(record.id);
    } else if (record.type === 'finished' && typeof record.exitstatus === 'number') {
      report.finished = {
        exitstatus: record.exitstatus,
        candidates: strings(record.candidates),
        setAside: strings(record.setAside),
        rootdir: typeof record.rootdir === 'string' ? record.rootdir : '.',
        plugins: Array.isArray(record.plugins)
          ? record.plugins.filter((item): item is [string, string] => Array.isArray(item) && item.length === 2 && item.every((part) => typeof part === 'string'))
          : [],
        tampered: strings(record.tampered),
      };
    }
  }
  return report;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
