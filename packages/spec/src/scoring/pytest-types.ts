/** Wire types of pytest scoring: what a scorer receives and reports (the parsers live in core). */

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
    /**
     * Files hook implementations came from, besides pytest's and pluggy's (relative inside the working
     * copy, real paths outside; recorded on the pristine run only).
     */
    hookFiles?: string[];
    /** The configuration file pytest read ('' for none): relative inside the working copy, real path outside. */
    inipath?: string;
  } | null;
}

/** The tests the pristine repository has, from the run at reset. */
export interface ExpectedTests {
  ids: readonly string[];
  /** Modules that failed to collect on the pristine repository: any test under one counts. */
  modules: readonly string[];
}

/** A scoring run's structured side, handed to the scorer next to the output. */
export interface StructuredPytestRun {
  report: PytestReport | null;
  expected: ExpectedTests | null;
  /** Protected files put back to their pristine content before the run. */
  restored: readonly string[];
}

/** Counts read from a pytest run's output. */
export interface PytestSummary {
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  xfailed: number;
  xpassed: number;
  /** From `collected N items`, when pytest printed it (not in `-q` mode). */
  collected: number | null;
  /** Tests that ran or were collected: `collected`, else the sum of every outcome. */
  total: number;
  /** Collection failed (import/syntax error in a test module or the code it imports). */
  collectionError: boolean;
  /** A summary line (`N passed in 0.1s`, `no tests ran`) was found at all. */
  summaryFound: boolean;
  /** Ids of the counted tests that did not pass (failed, error, missing), when a structured report told. */
  failedTests?: string[];
}
