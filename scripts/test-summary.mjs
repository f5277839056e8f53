#!/usr/bin/env node
// Adds up the vitest JSON reports that `turbo run test` left in every package (and the one the Python
// client's pytest suite writes in the same shape, clients/python/tests/conftest.py) and prints one
// closing line ("N passed, N failed"), so a run over many packages ends with a single verdict.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
let passed = 0;
let failed = 0;
let skipped = 0;
const rows = [];
const failures = [];
for (const group of ['packages', 'examples', 'tools', 'clients', '.']) {
  const base = join(root, group);
  const dirs = group === '.' ? ['benchmarks'] : existsSync(base) ? readdirSync(base) : [];
  for (const dir of dirs) {
    const file = join(base, dir, 'test-results.json');
    if (!existsSync(file)) continue;
    const report = JSON.parse(readFileSync(file, 'utf8'));
    const p = report.numPassedTests ?? 0;
    const f = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
    const s = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    passed += p;
    failed += f;
    skipped += s;
    failures.push(...failuresOf(report, dir));
    rows.push(`${dir.padEnd(24)} ${String(p).padStart(5)} passed ${String(f).padStart(4)} failed ${String(s).padStart(4)} skipped`);
  }
}
console.log('\nTest summary by package:');
for (const row of rows) console.log(`  ${row}`);
if (failures.length > 0) {
  // Repeated at the very end so that the tail of a long CI log names what failed.
  console.log(`\nFailed (${failures.length}):`);
  for (const line of failures) console.log(`  ${line}`);
}
console.log(`\ntotal: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

/** One line per failed test or suite that could not run: package, file, test name and the error's first line. */
function failuresOf(report, dir) {
  const lines = [];
  for (const suite of report.testResults ?? []) {
    const file = suite.name ? suite.name.replace(`${root}`, '') : '?';
    const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failedTests) lines.push(`${dir}: ${file} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`);
    if (suite.status === 'failed' && failedTests.length === 0) lines.push(`${dir}: ${file}: ${firstLine(suite.message)}`);
  }
  return lines;
}

function firstLine(text) {
  const line = String(text ?? '').split('\n').find((part) => part.trim() !== '') ?? '(no message)';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
