import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testPython, testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import { executeRun, resolveRunConfig } from '../src/index.js';
import { fakeBenchmark, task } from './helpers/fixtures.js';
import { captureIo } from './helpers/io.js';

/**
 * A task whose test run number N (counted in a file outside the sandbox's copy) hangs when N is in
 * `slow`: a stand-in for a correct fix that times out because the machine was busy. (Local terminal:
 * the counter lives on the host.)
 */
/**
 * The time limit: the hanging runs must reach it, the others must not, whatever the machine's load. So it
 * is derived from a normal run of the same tests measured now, on this machine as loaded as it is (a
 * cold `python -m pytest`, slower than the env's forked runs), with room: 8 times that, at least 5 s.
 */
function measuredRunTimeout(): number {
  const repo = testdir({ 'app.py': 'def add(a, b):\n    return a + b\n', 'test_app.py': 'import os, time\nfrom app import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n' });
  const started = performance.now();
  execFileSync(testPython, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_app.py'], { cwd: repo, stdio: 'ignore' });
  return Math.max(5, Math.ceil((8 * (performance.now() - started)) / 1000));
}

const runTimeout = measuredRunTimeout();

function slowOnRuns(slow: number[]) {
  const counter = join(testdir({}), 'runs.txt');
  const repo = testdir({
    'app.py': 'def add(a, b):\n    return a - b\n',
    'test_app.py': [
      'import os, time',
      'from app import add',
      '',
      '',
      'def test_add():',
      `    path = ${JSON.stringify(counter)}`,
      '    runs = int(open(path).read()) if os.path.exists(path) else 0',
      "    open(path, 'w').write(str(runs + 1))",
      `    if runs in ${JSON.stringify(slow)}:`,
      '        time.sleep(120)',
      '    assert add(1, 2) == 3',
      '',
    ].join('\n'),
  });
  const fixTask = task('slow_fix', repo, { entrypoint: 'python -m pytest -q test_app.py', runTimeout });
  const benchmark = fakeBenchmark([fixTask], { solutions: { slow_fix: [{ name: 'rewrite', arguments: { path: 'app.py', start: 2, new_code: '    return a + b' } }] } });
  return { benchmark, runs: () => Number(readFileSync(counter, 'utf8')) };
}

async function run(slow: number[], base: Record<string, unknown>) {
  const { benchmark, runs } = slowOnRuns(slow);
  const out = testdir({});
  const config = resolveRunConfig({ base: { benchmark: 'fake', output_path: out, terminal: { type: 'local', python: testPython }, ...base } }, { agent: 'solution' });
  const capture = captureIo();
  const results = await executeRun({ config, benchmark, io: capture.io, handleSigint: false });
  return { results, runs: runs(), stdout: capture.stdout() };
}

// Concurrent: each test mostly waits out the time limit (5 s on a quiet machine), in its own sandbox and folders.
describe.concurrent('an evaluation that times out', () => {
  test('is re-run once before the episode is scored, and the fix counts', async () => {
    // Runs: 0 reset, 1 the fix's evaluation (hangs), 2 the re-run.
    const { results, runs } = await run([1], { fresh_grading: false });
    expect(runs).toBe(3);
    expect(results.tasks[0]).toMatchObject({ status: 'resolved', score: 1, maxScore: 1, evalRetries: 1 });
  }, 120_000 + 4 * runTimeout * 1000);

  test('is reported as timed out, not as failed tests, when no re-run is allowed; the known maximum stays', async () => {
    const { results, stdout } = await run([1], { fresh_grading: false, timeout_retries: 0 });
    expect(results.tasks[0]).toMatchObject({ status: 'timed_out', score: 0, maxScore: 1 });
    expect(results.totals).toMatchObject({ timedOut: 1, unresolved: 0, resolved: 0 });
    expect(stdout).toMatch(/slow_fix\s*│\s*timed out\s*│\s*0\/1/);
    expect(stdout).toContain('1 task TIMED OUT (slow_fix)');
  }, 120_000 + 4 * runTimeout * 1000);

  test('in the fresh-sandbox grading is re-run too', async () => {
    // Runs: 0 reset, 1 the fix (hangs), 2 the fresh reset, 3 the grading (hangs), 4 its re-run.
    const { results, runs } = await run([1, 3], {});
    expect(runs).toBe(5);
    expect(results.tasks[0]).toMatchObject({ status: 'resolved', evalRetries: 1, grading: { inEpisodeResolved: false, disagrees: true } });
  }, 120_000 + 4 * runTimeout * 1000);
});
