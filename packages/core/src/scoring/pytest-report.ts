import type { PytestReport, TestOutcome } from '@debug-gym/spec';

const OUTCOMES = new Set<TestOutcome>(['passed', 'failed', 'error', 'skipped', 'xfailed', 'xpassed']);

/** Parse the report's JSON lines. Lines that do not parse (a truncated write) end the report unfinished. */
export function parsePytestReport(text: string): PytestReport {
  const report: PytestReport = { tests: new Map(), collectErrors: [], finished: null };
  let sealed = false;
  let afterSeal = false;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    if (sealed) {
      afterSeal = true;
      break;
    }
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
        hookFiles: strings(record.hookFiles),
        inipath: typeof record.inipath === 'string' ? record.inipath : '',
      };
    } else if (record.type === 'sealed' && report.finished) {
      sealed = true;
    }
  }
  // The launcher seals the report as the process's very last act, after every exit handler of the
  // code under test: a finished report that is not sealed, or that goes on after its seal, was
  // changed after pytest was done with it.
  if (report.finished && (!sealed || afterSeal)) {
    report.finished.tampered.push(
      afterSeal ? 'the report was written to after debug-gym sealed it' : 'the report was not sealed at exit (an exit handler or thread of the code under test changed it, or cleared debug-gym\'s)',
    );
  }
  return report;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
