#!/usr/bin/env node
// The closing verdict of `pnpm test`: adds up the vitest JSON reports that `turbo run test` left in every
// package (and the one the Python client's pytest suite writes in the same shape,
// clients/python/tests/conftest.py) and prints one line ("N passed, N failed"), so a run over many packages
// ends with a single verdict.
//
// The reports alone cannot say that a package's run failed: a global set-up that throws, a collection
// error, "No test files found" or missed coverage thresholds end the run with exit code 1 and no failed
// test (often no report at all). So the verdict starts from turbo's run summary (`--summarize`), which has
// every task's exit code: a package whose test run failed counts as a failure, by name, whatever its report
// says; a task that failed before (a dependency's build) too.
//
// Usage: node scripts/test-summary.mjs [--task test|test:e2e] [--since <epoch ms>] [--turbo-exit <code>] [--root <dir>]
//   --task        the turbo task whose run is summed up (default `test`; `test:e2e` reads test-results.e2e.json)
//   --since       the run summary to read is the first `turbo run test` one started at or after this time
//                 (without it: the newest); without any, only the reports are added up (with a warning)
//   --turbo-exit  turbo's own exit code: nonzero fails the verdict even if nothing else explains it
//   --root        the repository (default: this script's)
import { existsSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = parseArgs(process.argv.slice(2));
const root = args.root ?? fileURLToPath(new URL('..', import.meta.url));
const since = args.since === undefined ? undefined : Number(args.since);
const turboExit = args['turbo-exit'] === undefined ? 0 : Number(args['turbo-exit']);
const taskName = args.task ?? 'test';
const reportFile = taskName === 'test' ? 'test-results.json' : `test-results.${taskName.replace(/^test:/, '')}.json`;
// Run summaries kept in .turbo/runs (each is a few hundred KB); older ones of `turbo run test` are removed.
const KEEP_RUN_SUMMARIES = 5;

let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];
const failures = [];
/** Packages (or tasks) whose run failed, for the closing line. */
const failedNames = new Set();

const run = findRunSummary();
if (run) {
  const tasks = [...run.summary.tasks].sort((a, b) => a.directory.localeCompare(b.directory) || a.taskId.localeCompare(b.taskId));
  for (const task of tasks) {
    const exitCode = task.execution?.exitCode;
    if (task.task !== taskName) {
      // A build the tests depend on: only its failure matters here (the tests that needed it fail or never run).
      if (exitCode !== undefined && exitCode !== 0) {
        failed++;
        failedNames.add(task.taskId);
        failures.push(`${task.taskId}: exited with code ${exitCode} (${firstLine(task.execution?.error)}; log: ${task.logFile})`);
      }
      continue;
    }
    const name = task.package;
    const started = task.execution?.startTime ?? 0;
    const fromCache = task.cache?.status === 'HIT';
    const report = readReport(join(root, task.directory, reportFile), fromCache ? undefined : started);
    const counts = report ? countsOf(report) : { p: 0, f: 0, s: 0 };
    const own = report ? failuresOf(report, name) : [];
    passed += counts.p;
    failed += counts.f;
    skipped += counts.s;
    failures.push(...own);
    let note = '';
    if (exitCode === undefined) {
      note = 'DID NOT RUN';
      failed++;
      failedNames.add(name);
      failures.push(`${name}: its test task never ran (a task it depends on failed: see above)`);
    } else if (exitCode !== 0) {
      note = `RUN FAILED (exit ${exitCode})`;
      failedNames.add(name);
      if (counts.f === 0) {
        // Nothing in the report explains the failure: the run as a whole counts as one.
        failed++;
        const why = report ? 'every test in its report passed' : 'it wrote no test report';
        failures.push(`${name}: the test run exited with code ${exitCode} but ${why} (a global set-up, collection, "no test files" or coverage-threshold failure; log: ${task.logFile})`);
      }
    } else if (!report) {
      note = 'NO REPORT';
      failed++;
      failedNames.add(name);
      failures.push(`${name}: the test run exited 0 but left no ${reportFile} from this run, so nothing vouches for it`);
    } else if (counts.f > 0) {
      failedNames.add(name);
    }
    const seconds = task.execution ? `${((task.execution.endTime - task.execution.startTime) / 1000).toFixed(0).padStart(4)} s${fromCache ? ' (cached)' : ''}` : '';
    rows.push(`${name.padEnd(34)} ${String(counts.p).padStart(5)} passed ${String(counts.f).padStart(4)} failed ${String(counts.s).padStart(4)} skipped ${seconds}${note ? `  ${note}` : ''}`);
  }
} else {
  console.log('\ntest-summary: no turbo run summary (.turbo/runs) of this run was found: adding up the reports alone, which cannot show a run that failed without a failed test.');
  for (const group of ['packages', 'examples', 'tools', 'clients', '.']) {
    const base = join(root, group);
    const dirs = group === '.' ? ['benchmarks'] : existsSync(base) ? readdirSync(base) : [];
    for (const dir of dirs) {
      const report = readReport(join(base, dir, reportFile));
      if (!report) continue;
      const counts = countsOf(report);
      passed += counts.p;
      failed += counts.f;
      skipped += counts.s;
      if (counts.f > 0) failedNames.add(dir);
      failures.push(...failuresOf(report, dir));
      rows.push(`${dir.padEnd(34)} ${String(counts.p).padStart(5)} passed ${String(counts.f).padStart(4)} failed ${String(counts.s).padStart(4)} skipped`);
    }
  }
}
if (turboExit !== 0 && failed === 0) {
  failed++;
  failures.push(`turbo exited with code ${turboExit}, and no task's failure explains it (see turbo's output above)`);
  failedNames.add('turbo');
}

console.log('\nTest summary by package:');
for (const row of rows) console.log(`  ${row}`);
if (failures.length > 0) {
  // Repeated at the very end so that the tail of a long CI log names what failed.
  console.log(`\nFailed (${failures.length}):`);
  for (const line of failures) console.log(`  ${line}`);
}
const names = failedNames.size > 0 ? ` (failed: ${[...failedNames].join(', ')})` : '';
console.log(`\ntotal: ${passed} passed, ${failed} failed, ${skipped} skipped${names}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

function parseArgs(argv) {
  const parsed = {};
  for (let i = 0; i < argv.length; i++) {
    const match = /^--([a-z-]+)$/.exec(argv[i]);
    if (!match || i + 1 >= argv.length) {
      console.error(`test-summary: unexpected argument ${argv[i]} (usage: [--task NAME] [--since MS] [--turbo-exit CODE] [--root DIR])`);
      process.exit(2);
    }
    parsed[match[1]] = argv[++i];
  }
  return parsed;
}

/** The run summary of this `turbo run test`: the first started at or after --since, else the newest. */
function findRunSummary() {
  const dir = join(root, '.turbo', 'runs');
  if (!existsSync(dir)) return undefined;
  const runs = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    try {
      const summary = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      if (!new RegExp(`\\brun ${taskName}(\\s|$)`).test(summary.execution?.command ?? '') || !Array.isArray(summary.tasks)) continue;
      runs.push({ file: join(dir, file), start: summary.execution.startTime ?? 0, summary });
    } catch {
      // being written, or not a run summary
    }
  }
  runs.sort((a, b) => a.start - b.start);
  for (const old of runs.slice(0, -KEEP_RUN_SUMMARIES)) {
    try {
      unlinkSync(old.file);
    } catch {
      // gone already
    }
  }
  if (since === undefined) return runs.at(-1);
  return runs.find((candidate) => candidate.start >= since);
}

/** A package's report; undefined when absent, unreadable, or (with `notBefore`) older than this run. */
function readReport(file, notBefore) {
  if (!existsSync(file)) return undefined;
  if (notBefore !== undefined && statSync(file).mtimeMs < notBefore) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function countsOf(report) {
  return {
    p: report.numPassedTests ?? 0,
    f: (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0),
    s: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
}

/** One line per failed test or suite that could not run: package, file, test name and the error's first line. */
function failuresOf(report, name) {
  const lines = [];
  for (const suite of report.testResults ?? []) {
    const file = suite.name ? suite.name.replace(root, '') : '?';
    const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) lines.push(`${name}: ${file} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`);
    if (suite.status === 'failed' && failedTests.length === 0) lines.push(`${name}: ${file}: ${firstLine(suite.message)}`);
  }
  return lines;
}

function firstLine(text) {
  const line = String(text ?? '').split('\n').find((part) => part.trim() !== '') ?? '(no message)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
