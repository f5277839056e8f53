import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTrajectory } from '@debug-gym/agents';
import { testPython, testdir } from '@debug-gym/test-utils';
import { describe, expect, test, vi } from 'vitest';
import { ExitError, executeRun, resolveRunConfig, runCommand, type RunResults } from '../src/index.js';
import { FIX_CALLS, buggyRepo, fakeBenchmark, runConfigFile, task } from './helpers/fixtures.js';
import { captureIo } from './helpers/io.js';

/** Pids of processes whose environment carries `RUN_TEST=<marker>` (and that run `command`, when given). */
function markedPids(marker: string, command?: string): number[] {
  return readdirSync('/proc')
    .filter((name) => {
      try {
        if (!readFileSync(`/proc/${name}/environ`).includes(`RUN_TEST=${marker}\0`)) return false;
        return command === undefined || readFileSync(`/proc/${name}/cmdline`).includes(command);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function scriptFile(calls: unknown = FIX_CALLS): string {
  const dir = testdir({ 'script.json': JSON.stringify({ steps: calls }) });
  return join(dir, 'script.json');
}

function configFile(extra = ''): { file: string; out: string; repo: string } {
  return runConfigFile({ maxSteps: 5, base: ['  replay: script.json'], extra: [extra] });
}

describe('debug-gym run on a custom repository', () => {
  test('runs the agent with a replayed model, writes the trajectory, summary and results, and prints the table', async () => {
    const { file, out, repo } = configFile();
    const capture = captureIo();
    const results = await runCommand(file, { agent: 'debug_agent', io: capture.io, handleSigint: false });
    expect(results.totals).toMatchObject({ tasks: 1, resolved: 1 });
    const runDir = join(out, 'debug_agent_replay-script');
    expect(results.outDir).toBe(runDir);
    const taskName = repo.split('/').pop() as string;
    const trajectory = await readTrajectory(join(runDir, taskName, 'trajectory.json'));
    expect(trajectory.steps.map((step) => step.toolCall?.name)).toEqual(['rewrite', 'eval']);
    expect(trajectory.config).toMatchObject({ agent_type: 'debug_agent', env: { path: repo }, tools: ['view', 'eval', 'rewrite'] });
    expect(trajectory.tools.map((tool) => tool.function.name)).toEqual(['view', 'eval', 'rewrite']);
    expect(trajectory.result).toMatchObject({ status: 'resolved', score: 2, maxScore: 2 });
    expect(JSON.parse(readFileSync(join(runDir, 'summary.jsonl'), 'utf8').trim())).toMatchObject({ task: taskName, status: 'resolved' });
    expect(JSON.parse(readFileSync(join(runDir, 'results.json'), 'utf8'))).toMatchObject({ agent: 'debug_agent', model: 'replay', benchmark: null, partial: false, totals: { resolved: 1 } });
    expect(capture.stdout()).toContain(`debug-gym: debug_agent with replay on ${taskName}`);
    expect(capture.stdout()).toMatch(new RegExp(`│ ${taskName}\\s+│ yes\\s+│ 2/2`));
    expect(capture.stdout()).toContain('Resolved 1/1 (100.0%)');
  });

  test('a second launch resumes (the finished task is skipped) and --force runs it again', async () => {
    const { file } = configFile();
    await runCommand(file, { agent: 'debug_agent', io: captureIo().io, handleSigint: false });
    const again = captureIo();
    const resumed = await runCommand(file, { agent: 'debug_agent', io: again.io, handleSigint: false });
    expect(resumed.tasks[0]).toMatchObject({ resumed: true, status: 'resolved' });
    expect(again.stdout()).toContain('(finished earlier, skipped)');
    const forced = await runCommand(file, { agent: 'debug_agent', io: captureIo().io, handleSigint: false, force: true });
    expect(forced.tasks[0]).toMatchObject({ resumed: false, status: 'resolved' });
  });

  test('-v prints a line per step and -vv every step in full', async () => {
    const { file } = configFile();
    const brief = captureIo();
    await runCommand(file, { agent: 'debug_agent', io: brief.io, handleSigint: false, verbose: 1, params: ['base.run_id=brief'] });
    expect(brief.stdout()).toMatch(/\] step 1: rewrite \{"path":"app.py","start":2,"new_code":" {4}return a \+ b"\} → The file `app.py` has been updated successfully\. \(\+\d+ lines\) \[score 1\/2\]/);
    expect(brief.stdout()).toMatch(/\] step 2: eval \{\} → .*\[score 2\/2\]/);
    const full = captureIo();
    await runCommand(file, { agent: 'debug_agent', io: full.io, handleSigint: false, verbose: 2, params: ['base.run_id=full'] });
    expect(full.stdout()).toMatch(/== \S+ step 2: eval \{\} ==\n[\s\S]*2 passed[\s\S]*\(score 2\/2, resolved\)/);
  });

  test('the only agent section is the default --agent; several sections need --agent', async () => {
    const { file } = configFile();
    const results = await runCommand(file, { io: captureIo().io, handleSigint: false });
    expect(results.agent).toBe('debug_agent');
    const two = configFile('rewrite_agent: {}').file;
    await expect(runCommand(two, { io: captureIo().io })).rejects.toThrow('Choose the agent section to run with --agent (' );
    await expect(runCommand(join(testdir({}), 'none.yaml'), { agent: 'debug_agent' })).rejects.toThrow(/Cannot read the config/);
  });

  test('-n and --tasks become the workers and tasks of the run', async () => {
    const { file } = configFile();
    const capture = captureIo();
    const results = await runCommand(file, { agent: 'debug_agent', io: capture.io, handleSigint: false, workers: 2, tasks: 'ignored-for-a-repository', params: ['base.run_id=n2'] });
    expect(results.config).toMatchObject({ workers: 2, tasks: ['ignored-for-a-repository'] });
    expect(capture.stdout()).toContain('2 workers');
  });

  test('a config without a benchmark or a repository says what to set; both at once is refused', async () => {
    const config = resolveRunConfig({ base: { llm_name: 'human' } }, { agent: 'debug_agent' });
    await expect(executeRun({ config, io: captureIo().io })).rejects.toThrow('Nothing to run: set `benchmark`');
    const both = resolveRunConfig({ base: { llm_name: 'human', benchmark: 'aider', env: { path: '/r' } } }, { agent: 'debug_agent' });
    await expect(executeRun({ config: both, io: captureIo().io })).rejects.toThrow('sets both `benchmark` and `env.path`');
  });
});

function benchConfig(extra: Record<string, unknown> = {}, agent = 'solution') {
  return resolveRunConfig({ base: { terminal: { type: 'local', python: testPython }, output_path: testdir({}), run_id: 'fake', ...extra } }, { agent });
}

describe('runs over a benchmark', () => {
  test('the solution agent replays each known fix through rewrite; no fix, a broken task and a network task are told apart', async () => {
    const repo = buggyRepo();
    const tasks = [
      task('fixable', repo),
      task('no-fix', repo),
      task('broken', join(repo, 'does-not-exist')),
      task('online', repo, { needsNetwork: true }),
    ];
    const benchmark = fakeBenchmark(tasks, { solutions: { fixable: [FIX_CALLS[0] as never], broken: [FIX_CALLS[0] as never], online: [] } });
    const capture = captureIo();
    const results = await executeRun({ config: benchConfig({ workers: 2 }), benchmark, io: capture.io, handleSigint: false });
    const byTask = Object.fromEntries(results.tasks.map((item) => [item.task, item]));
    expect(byTask.fixable).toMatchObject({ status: 'resolved', steps: 2 });
    expect(byTask['no-fix']).toMatchObject({ status: 'error', error: expect.stringContaining('fake has no known fix for task no-fix') });
    expect(byTask.broken).toMatchObject({ status: 'error' });
    expect(byTask.online).toMatchObject({ status: 'needs network', steps: 1 });
    expect(results.totals).toMatchObject({ tasks: 4, resolved: 1, errors: 2, needsNetwork: 1 });
    expect(results).toMatchObject({ agent: 'solution', model: null, benchmark: 'fake', partial: false, dataset: { source: '/fake', complete: true } });
    const trajectory = await readTrajectory(byTask.fixable?.trajectory as string);
    expect(trajectory.agent).toEqual({ type: 'solution', settings: { calls: 1 } });
    expect(trajectory.tools.map((tool) => tool.function.name)).toEqual(['rewrite', 'eval']);
    expect(capture.stderr()).toContain('fake: read 4 tasks');
    expect(capture.stdout()).toContain('1 task needs the network (online), not counted as failure');
  });

  test("each benchmark episode is graded again in a fresh sandbox; the episode's own score is kept next to it", async () => {
    const repo = buggyRepo();
    const calls = [{ name: 'rewrite', arguments: { path: 'notes.txt', new_code: 'fixed' } }, ...FIX_CALLS];
    const benchmark = fakeBenchmark([task('a', repo)], { solutions: { a: calls as never } });
    const results = await executeRun({ config: benchConfig(), benchmark, io: captureIo().io, handleSigint: false });
    expect(results.tasks[0]).toMatchObject({ status: 'resolved', score: 2, maxScore: 2, grading: { inEpisodeScore: 2, inEpisodeResolved: true, disagrees: false } });
    const trajectory = await readTrajectory(results.tasks[0]?.trajectory as string);
    expect(trajectory.result).toMatchObject({ status: 'resolved', grading: { resolved: true, applied: ['app.py', 'notes.txt'], dropped: [] } });
    const ungraded = await executeRun({ config: benchConfig({ run_id: 'again' }), benchmark, io: captureIo().io, handleSigint: false, freshGrading: false });
    expect(ungraded.tasks[0]).toMatchObject({ status: 'resolved' });
    expect(ungraded.tasks[0]?.grading).toBeUndefined();
    const configured = await executeRun({ config: benchConfig({ run_id: 'configured', fresh_grading: false }), benchmark, io: captureIo().io, handleSigint: false });
    expect(configured.tasks[0]).toMatchObject({ status: 'resolved' });
    expect(configured.tasks[0]?.grading).toBeUndefined();
  });

  test('terminal.pool_size keeps sandboxes warm for the episodes: each reset forks a ready fork server', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo), task('b', repo), task('c', repo)], { solutions: { a: FIX_CALLS, b: FIX_CALLS, c: FIX_CALLS } });
    const config = benchConfig({ terminal: { type: 'local', python: testPython, pool_size: 1 }, fresh_grading: false });
    const results = await executeRun({ config, benchmark, io: captureIo().io, handleSigint: false });
    expect(results.tasks.map((item) => item.status)).toEqual(['resolved', 'resolved', 'resolved']);
    for (const item of results.tasks) {
      const trajectory = await readTrajectory(item.trajectory as string);
      expect(trajectory.reset?.launches?.find((launch) => launch.source === 'env')).toMatchObject({ source: 'env', via: 'fork-server' });
    }
  });

  test('a partial dataset and a --tasks subset are reported as such, never as the benchmark score', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo), task('b', repo)], {
      solutions: { a: [FIX_CALLS[0] as never], b: [FIX_CALLS[0] as never] },
      dataset: { complete: false, expectedCount: 10, warnings: ['exercise c is missing: /fake/c'] },
    });
    const capture = captureIo();
    const results: RunResults = await executeRun({ config: benchConfig({ tasks: ['a'] }), benchmark, io: capture.io, handleSigint: false });
    expect(results.partial).toBe(true);
    expect(results.subset).toBe(true);
    expect(results.partialReasons).toEqual(['the fake data is partial (1 of 10 tasks, /fake)', 'only 1 task was selected (--tasks)']);
    expect(capture.stderr()).toContain('WARNING (fake data): exercise c is missing: /fake/c');
    expect(capture.stderr()).toContain('is PARTIAL');
    expect(capture.stdout()).toContain('PARTIAL: this is not a full fake score');
  });

  test('the solution agent needs a benchmark that knows its fixes', async () => {
    const repo = buggyRepo();
    const { solution: _unused, ...withoutSolutions } = fakeBenchmark([task('a', repo)]);
    await expect(executeRun({ config: benchConfig(), benchmark: withoutSolutions, io: captureIo().io })).rejects.toThrow('does not provide known fixes');
    const custom = resolveRunConfig({ base: { env: { path: repo } } }, { agent: 'solution' });
    await expect(executeRun({ config: custom, io: captureIo().io })).rejects.toThrow("replays a benchmark's known fixes");
  });

  test('the solution agent adds rewrite and eval to the tools the config lists', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo)], { solutions: { a: [FIX_CALLS[0] as never] } });
    const results = await executeRun({ config: benchConfig({ tools: ['view', { eval: { runOnRewrite: false } }] }), benchmark, io: captureIo().io, handleSigint: false });
    const trajectory = await readTrajectory(results.tasks[0]?.trajectory as string);
    expect(trajectory.tools.map((tool) => tool.function.name)).toEqual(['view', 'eval', 'rewrite']);
  });

  test('stopping a run ends the running episode, starts no other, writes partial results and exits 130', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo), task('b', repo)]);
    const capture = captureIo();
    const controller = new AbortController();
    capture.onStdout((text) => {
      if (text.includes('step 1:')) controller.abort();
    });
    const config = resolveRunConfig(
      { base: { terminal: { type: 'local', python: testPython }, output_path: testdir({}), replay: scriptFile(), run_id: 'stopped', max_steps: 5 } },
      { agent: 'debug_agent' },
    );
    const run = executeRun({ config, benchmark, io: capture.io, signal: controller.signal, verbose: 1, handleSigint: false });
    await expect(run).rejects.toSatisfy((error: unknown) => ExitError.isInstance(error) && error.exitCode === 130);
    const results = JSON.parse(readFileSync(join(config.output_path, 'stopped', 'results.json'), 'utf8')) as RunResults;
    expect(results).toMatchObject({ aborted: true, partial: true, notRun: ['b'] });
    expect(results.tasks).toEqual([expect.objectContaining({ task: 'a', status: 'aborted', steps: 1 })]);
  });

  test('SIGTERM cancels a running 600 s step at once: its command is killed, partial results written, exit code 143', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo)]);
    const marker = `run-sigterm-${process.pid}`;
    const config = resolveRunConfig(
      {
        base: {
          terminal: { type: 'local', python: testPython, env: { RUN_TEST: marker } },
          tools: ['bash'],
          output_path: testdir({}),
          replay: scriptFile([{ name: 'bash', arguments: { command: 'sleep 600', timeout: 3600 } }]),
          run_id: 'sigterm',
          max_steps: 5,
        },
      },
      { agent: 'debug_agent' },
    );
    const capture = captureIo();
    const before = process.listenerCount('SIGTERM');
    const run = executeRun({ config, benchmark, io: capture.io });
    run.catch(() => undefined);
    // The sandbox's fork server carries the marker too: wait for the command itself.
    await vi.waitFor(() => expect(markedPids(marker, 'sleep')).not.toEqual([]), { timeout: 30_000 });
    process.emit('SIGTERM', 'SIGTERM');
    await expect(run).rejects.toSatisfy((error: unknown) => ExitError.isInstance(error) && error.exitCode === 143);
    // Nothing of the run is left. Polled: once, on a loaded CI machine, one marked process was still
    // exiting when the run had already rejected (a leak still fails after 10 s).
    await vi.waitFor(() => expect(markedPids(marker)).toEqual([]), { timeout: 10_000, interval: 50 });
    expect(capture.stderr()).toContain('Stopping (SIGTERM)');
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });

  test('Ctrl-C (SIGINT) is handled while a run goes and released after it', async () => {
    const repo = buggyRepo();
    const benchmark = fakeBenchmark([task('a', repo), task('b', repo)]);
    const capture = captureIo();
    let interrupted = false;
    capture.onStdout((text) => {
      if (text.includes('step 1:') && !interrupted) {
        interrupted = true;
        process.emit('SIGINT', 'SIGINT');
      }
    });
    const before = process.listenerCount('SIGINT');
    const config = resolveRunConfig(
      { base: { terminal: { type: 'local', python: testPython }, output_path: testdir({}), replay: scriptFile(), run_id: 'sigint', max_steps: 5 } },
      { agent: 'debug_agent' },
    );
    await expect(executeRun({ config, benchmark, io: capture.io, verbose: 1 })).rejects.toThrow(/Stopped: partial results written/);
    expect(capture.stderr()).toContain('Stopping (SIGINT): cancelling running steps, closing the sandboxes and writing partial results');
    expect(process.listenerCount('SIGINT')).toBe(before);
  });
});

describe('the human model and --debug, in process', () => {
  test('-p debug_agent.llm_name=human reads tool calls from the terminal, typos included', async () => {
    const { file } = configFile();
    const capture = captureIo();
    let typed = 0;
    const answers = ['evl', 'rewrite path=app.py start=2 new_code="    return a + b"', 'eval'];
    capture.onStdout((text) => {
      const prompts = text.split('debug-gym> ').length - 1;
      // Typed a moment later, as a person would (the model reads after it has shown its prompt).
      while (typed < prompts && typed < answers.length) setTimeout(capture.type, 20, answers[typed++] as string);
    });
    const results = await runCommand(file, { agent: 'debug_agent', io: capture.io, params: ['debug_agent.llm_name=human', 'base.replay=null', 'base.workers=3'] });
    expect(results).toMatchObject({ model: 'human', totals: { resolved: 1 } });
    expect(capture.stdout()).toMatch(/Unknown tool 'evl'/);
    expect(capture.stderr()).toContain('Running one task at a time (human model), not 3.');
  });

  test('--debug shows each step and waits for c; another answer asks again and q stops the run', async () => {
    const { file } = configFile();
    const capture = captureIo();
    let pauses = 0;
    capture.onStdout((text) => {
      const seen = text.split('Paused. Type c and Enter').length - 1;
      while (pauses < seen) {
        pauses += 1;
        capture.type(pauses === 1 ? 'x' : pauses === 2 ? 'c' : 'q');
      }
    });
    await expect(runCommand(file, { agent: 'debug_agent', io: capture.io, debug: true, handleSigint: false, params: ['base.max_steps=5'] })).rejects.toSatisfy(
      (error: unknown) => ExitError.isInstance(error) && error.exitCode === 130,
    );
    const out = capture.stdout();
    expect(out).toMatch(/== \S+ step 1: rewrite [^\n]+ ==/);
    expect(out).toContain("Unknown answer 'x'.");
    expect(pauses).toBe(3);
  });
});

test('a config file keeps secrets out of the stored config', async () => {
  const { file } = configFile('  generate_kwargs: { api_key: sk-secret-value-123 }');
  const results = await runCommand(file, { agent: 'debug_agent', io: captureIo().io, handleSigint: false });
  const text = readFileSync(results.tasks[0]?.trajectory as string, 'utf8');
  expect(text).not.toContain('sk-secret-value-123');
  expect(readFileSync(join(results.outDir, 'results.json'), 'utf8')).not.toContain('sk-secret-value-123');
});
