/**
 * scripts/test-summary.mjs, the closing verdict of `pnpm test`, over made-up repositories: turbo's run
 * summary (what `--summarize` writes) plus the packages' vitest reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../../../scripts/test-summary.mjs', import.meta.url));
const START = 1_700_000_000_000;
const roots: string[] = [];

afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

interface Task {
  package: string;
  directory: string;
  task?: string;
  exitCode?: number;
  /** No `execution`: turbo never ran it. */
  ran?: boolean;
  cache?: 'HIT' | 'MISS';
}

function repo(): string {
  const root = mkdtempSync(join(tmpdir(), 'dg-test-summary-'));
  roots.push(root);
  return root;
}

/** A run summary in .turbo/runs as `turbo run test --summarize` writes it (the fields the script reads). */
function runSummary(root: string, tasks: Task[], options: { start?: number; name?: string; command?: string } = {}): void {
  const start = options.start ?? START;
  mkdirSync(join(root, '.turbo', 'runs'), { recursive: true });
  const summary = {
    execution: { command: options.command ?? 'turbo run test --concurrency=3 --continue=always', startTime: start, endTime: start + 60_000 },
    tasks: tasks.map((task) => {
      const name = task.task ?? 'test';
      return {
        taskId: `${task.package}#${name}`,
        task: name,
        package: task.package,
        directory: task.directory,
        logFile: `${task.directory}/.turbo/turbo-${name}.log`,
        cache: { status: task.cache ?? 'MISS' },
        ...(task.ran === false ? {} : { execution: { startTime: start + 1000, endTime: start + 31_000, exitCode: task.exitCode ?? 0, ...(task.exitCode ? { error: `command exited (${task.exitCode})` } : {}) } }),
      };
    }),
  };
  writeFileSync(join(root, '.turbo', 'runs', `${options.name ?? 'run'}.json`), JSON.stringify(summary));
}

/** A vitest JSON report, written (mtime) after the run started unless `stale`. */
function report(root: string, directory: string, counts: { passed: number; failed?: number; failedTest?: string }, stale = false): void {
  const dir = join(root, directory);
  mkdirSync(dir, { recursive: true });
  const assertionResults = [
    ...Array.from({ length: counts.passed }, (_, i) => ({ status: 'passed', fullName: `passes ${i}` })),
    ...Array.from({ length: counts.failed ?? 0 }, () => ({ status: 'failed', fullName: counts.failedTest ?? 'fails', failureMessages: ['AssertionError: expected 1 to be 2\n    at x'] })),
  ];
  const file = join(dir, 'test-results.json');
  writeFileSync(file, JSON.stringify({
    numPassedTests: counts.passed,
    numFailedTests: counts.failed ?? 0,
    numPendingTests: 0,
    numTodoTests: 0,
    numRuntimeErrorTestSuites: 0,
    testResults: [{ name: join(dir, 'test', 'a.test.ts'), status: counts.failed ? 'failed' : 'passed', message: '', assertionResults }],
  }));
  const when = (stale ? START - 3_600_000 : START + 30_000) / 1000;
  utimesSync(file, when, when);
}

function summarize(root: string, extra: string[] = []): { status: number | null; output: string; last: string } {
  const result = spawnSync(process.execPath, [script, '--root', root, '--since', String(START), ...extra], { encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  return { status: result.status, output, last: output.trim().split('\n').at(-1) ?? '' };
}

describe('the test summary', () => {
  it('passes when every package ran and passed', () => {
    const root = repo();
    runSummary(root, [{ package: '@x/a', directory: 'packages/a' }, { package: '@x/b', directory: 'packages/b' }]);
    report(root, 'packages/a', { passed: 3 });
    report(root, 'packages/b', { passed: 2 });
    const { status, last } = summarize(root);
    expect(last).toBe('total: 5 passed, 0 failed, 0 skipped');
    expect(status).toBe(0);
  });

  it('fails, by name, a package whose global set-up failed (no report, no failed test)', () => {
    const root = repo();
    runSummary(root, [{ package: '@x/a', directory: 'packages/a' }, { package: 'my-plugin', directory: 'examples/my-plugin', exitCode: 1 }]);
    report(root, 'packages/a', { passed: 3 });
    const { status, output, last } = summarize(root);
    expect(status).toBe(1);
    expect(last).toBe('total: 3 passed, 1 failed, 0 skipped (failed: my-plugin)');
    expect(output).toMatch(/my-plugin\s+0 passed\s+0 failed\s+0 skipped\s+30 s {2}RUN FAILED \(exit 1\)/);
    expect(output).toContain('my-plugin: the test run exited with code 1 but it wrote no test report');
    expect(output).toContain('log: examples/my-plugin/.turbo/turbo-test.log');
  });

  it('fails a package whose tests all passed but whose run did not (coverage thresholds), and ignores a report left by an earlier run', () => {
    const root = repo();
    runSummary(root, [{ package: '@x/covered', directory: 'packages/covered', exitCode: 1 }, { package: '@x/old', directory: 'packages/old', exitCode: 1 }]);
    report(root, 'packages/covered', { passed: 4 });
    report(root, 'packages/old', { passed: 9 }, true);
    const { status, output, last } = summarize(root);
    expect(status).toBe(1);
    expect(last).toBe('total: 4 passed, 2 failed, 0 skipped (failed: @x/covered, @x/old)');
    expect(output).toContain('@x/covered: the test run exited with code 1 but every test in its report passed');
    expect(output).toContain('@x/old: the test run exited with code 1 but it wrote no test report');
  });

  it('counts a failed test once, and names it', () => {
    const root = repo();
    runSummary(root, [{ package: '@x/a', directory: 'packages/a', exitCode: 1 }]);
    report(root, 'packages/a', { passed: 2, failed: 1, failedTest: 'adds numbers' });
    const { status, output, last } = summarize(root);
    expect(status).toBe(1);
    expect(last).toBe('total: 2 passed, 1 failed, 0 skipped (failed: @x/a)');
    expect(output).toMatch(/@x\/a: \/packages\/a\/test\/a\.test\.ts > adds numbers: AssertionError: expected 1 to be 2/);
  });

  it('names a failed build and the test task that never ran because of it; a passing run with no report of its own fails too', () => {
    const root = repo();
    runSummary(root, [
      { package: '@x/spec', directory: 'packages/spec', task: 'build', exitCode: 2 },
      { package: '@x/a', directory: 'packages/a', ran: false },
      { package: '@x/b', directory: 'packages/b' },
      { package: '@x/c', directory: 'packages/c', cache: 'HIT' },
    ]);
    report(root, 'packages/b', { passed: 1 }, true);
    report(root, 'packages/c', { passed: 5 }, true); // restored from turbo's cache: its age does not matter
    const { status, output, last } = summarize(root);
    expect(status).toBe(1);
    expect(last).toBe('total: 5 passed, 3 failed, 0 skipped (failed: @x/a, @x/b, @x/spec#build)');
    expect(output).toContain('@x/spec#build: exited with code 2');
    expect(output).toContain('@x/a: its test task never ran');
    expect(output).toMatch(/@x\/a\s+0 passed\s+0 failed\s+0 skipped\s+DID NOT RUN/);
    expect(output).toContain('@x/b: the test run exited 0 but left no test-results.json from this run');
  });

  it('reads the run that started at --since, not an older or another command\'s, and fails on a turbo exit nothing explains', () => {
    const root = repo();
    runSummary(root, [{ package: '@x/a', directory: 'packages/a', exitCode: 1 }], { start: START - 10_000, name: 'older' });
    runSummary(root, [{ package: '@x/a', directory: 'packages/a', task: 'build', exitCode: 1 }], { start: START + 5, name: 'build', command: 'turbo run build' });
    runSummary(root, [{ package: '@x/a', directory: 'packages/a' }], { start: START + 10, name: 'this' });
    report(root, 'packages/a', { passed: 1 });
    expect(summarize(root).last).toBe('total: 1 passed, 0 failed, 0 skipped');
    const { status, output, last } = summarize(root, ['--turbo-exit', '1']);
    expect(status).toBe(1);
    expect(last).toBe('total: 1 passed, 1 failed, 0 skipped (failed: turbo)');
    expect(output).toContain('turbo exited with code 1, and no task\'s failure explains it');
  });

  it('without a run summary adds up the reports and says what it cannot see', () => {
    const root = repo();
    report(root, 'packages/a', { passed: 2 });
    report(root, 'examples/b', { passed: 1, failed: 1 });
    const { status, output, last } = summarize(root);
    expect(output).toContain('no turbo run summary');
    expect(last).toBe('total: 3 passed, 1 failed, 0 skipped (failed: b)');
    expect(status).toBe(1);
  });
});
