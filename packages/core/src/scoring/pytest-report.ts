import type { PytestReport, TestOutcome } from '@debug-gym/spec';

const OUTCOMES = new Set<TestOutcome>(['passed', 'failed', 'error', 'skipped', 'xfailed', 'xpassed']);

/** No record the launcher writes comes near this; a longer line is the code under test writing to the report. */
export const MAX_REPORT_LINE_BYTES = 1024 * 1024;
/** How much of a report is parsed between two turns of the event loop (other sessions are served in between). */
const SLICE_BYTES = 256 * 1024;

/** Parse the report's JSON lines. Lines that do not parse (a truncated write) end the report unfinished. */
export function parsePytestReport(text: string): PytestReport {
  const reader = new ReportReader();
  for (const line of text.split('\n')) if (!reader.line(line)) break;
  return reader.end();
}

/**
 * The same parse over the report's bytes, yielding to the event loop every {@link SLICE_BYTES}: a report
 * the code under test inflated to the size cap costs the server's other sessions no stall, and a line
 * over {@link MAX_REPORT_LINE_BYTES} is never handed to `JSON.parse` (the report counts as tampered).
 */
export async function parsePytestReportBytes(bytes: Uint8Array): Promise<PytestReport> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reader = new ReportReader();
  let start = 0;
  let sliceEnd = SLICE_BYTES;
  while (start < buffer.length) {
    const newline = buffer.indexOf(10, start);
    const end = newline === -1 ? buffer.length : newline;
    if (end - start > MAX_REPORT_LINE_BYTES) {
      reader.oversized();
      break;
    }
    if (!reader.line(buffer.toString('utf8', start, end))) break;
    start = end + 1;
    if (start >= sliceEnd) {
      sliceEnd = start + SLICE_BYTES;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return reader.end();
}

class ReportReader {
  private readonly report: PytestReport = { tests: new Map(), collectErrors: [], finished: null };
  private sealed = false;
  private afterSeal = false;
  private tooLong = false;

  /** Reads one line; false when the report ends there. */
  line(line: string): boolean {
    if (!line.trim()) return true;
    if (this.sealed) {
      this.afterSeal = true;
      return false;
    }
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.report.finished = null;
      return false;
    }
    const report = this.report;
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
      this.sealed = true;
    }
    return true;
  }

  /** A line too long to be the launcher's: the report is not read further and cannot score. */
  oversized(): void {
    this.tooLong = true;
  }

  end(): PytestReport {
    const report = this.report;
    if (this.tooLong) {
      // Whatever came before may be real, but a report something else wrote into is not a score.
      report.finished ??= { exitstatus: -1, candidates: [], setAside: [], rootdir: '.', plugins: [], tampered: [], hookFiles: [], inipath: '' };
      report.finished.tampered.push(`the report has a line over ${MAX_REPORT_LINE_BYTES} bytes, which debug-gym never writes`);
      return report;
    }
    // The launcher seals the report as the process's very last act, after every exit handler of the
    // code under test: a finished report that is not sealed, or that goes on after its seal, was
    // changed after pytest was done with it.
    if (report.finished && (!this.sealed || this.afterSeal)) {
      report.finished.tampered.push(
        this.afterSeal ? 'the report was written to after debug-gym sealed it' : 'the report was not sealed at exit (an exit handler or thread of the code under test changed it, or cleared debug-gym\'s)',
      );
    }
    return report;
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
