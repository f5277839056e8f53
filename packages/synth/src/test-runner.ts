import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Terminal } from '@debug-gym/spec';
import { SynthError } from './synth-error.js';

/** The in-sandbox runner (standard-library Python + pytest), shipped beside `dist/` and `src/`. */
export const RUNNER_SCRIPT = join(import.meta.dirname, '..', 'python', 'runner.py');
const MARKER = '@@debug-gym-synth-result@@';
const SANDBOX_SCRIPT = '/tmp/debug-gym-synth/runner.py';

/** One test's result as the runner reports it. */
export interface TestResult {
  outcome: 'passed' | 'failed' | 'error' | 'skipped';
  exception?: string;
  message?: string;
  /** The traceback inside the working copy, outermost first: [file, line, function]. */
  frames?: [string, number, string][];
}

export interface RunnerOutput {
  tests: Record<string, TestResult>;
  exit: number;
  coverage?: { functions: [string, number, string][]; tests: Record<string, number[]> };
  timedOut: boolean;
  durationMs: number;
  forked: boolean;
}

/**
 * A sandbox holding one working copy of the repository and a fork server with pytest preloaded:
 * each `run` is one forked `pytest.main` over the given tests (or the whole suite).
 */
export class SandboxTestRunner {
  private constructor(readonly terminal: Terminal) {}

  /** Start `terminal`, copy the repository in, install the runner and start the fork server. */
  static async open(terminal: Terminal, repoDir: string): Promise<SandboxTestRunner> {
    await terminal.start();
    await terminal.copyIn(repoDir);
    const install = await terminal.run(`mkdir -p /tmp/debug-gym-synth && cat > ${SANDBOX_SCRIPT}`, { input: readFileSync(RUNNER_SCRIPT, 'utf8'), timeoutMs: 60_000 });
    if (install.exitCode !== 0) throw new SynthError('DG_SYNTH_RUNNER_FAILED', `could not install the test runner in the ${terminal.kind} sandbox: ${install.output.trim()}`);
    await terminal.startForkServer?.({ preload: ['pytest'] });
    return new SandboxTestRunner(terminal);
  }

  /** Run `tests` (node ids; null for the whole suite). */
  async run(tests: readonly string[] | null, options: { coverage?: boolean; timeoutMs: number }): Promise<RunnerOutput> {
    const request = JSON.stringify({ tests, coverage: options.coverage ?? false, root: this.terminal.workdir });
    const result = await this.terminal.run(`${this.terminal.python} ${SANDBOX_SCRIPT}`, {
      input: request,
      timeoutMs: options.timeoutMs,
      cwd: this.terminal.workdir,
      python: { args: [SANDBOX_SCRIPT], uses: ['pytest'] },
    });
    const forked = result.launch?.via === 'fork-server';
    if (result.timedOut) return { tests: {}, exit: -1, timedOut: true, durationMs: result.durationMs, forked };
    const at = result.output.lastIndexOf(MARKER);
    if (at < 0) {
      throw new SynthError('DG_SYNTH_RUNNER_FAILED', `the test runner printed no result (exit ${String(result.exitCode)}): ${result.output.trim().split('\n').slice(-8).join('\n')}`);
    }
    const parsed = JSON.parse(result.output.slice(at + MARKER.length).trim()) as Omit<RunnerOutput, 'timedOut' | 'durationMs' | 'forked'>;
    return { ...parsed, timedOut: false, durationMs: result.durationMs, forked };
  }

  writeFile(path: string, text: string): Promise<void> {
    return this.terminal.writeFile(path, text);
  }

  close(): Promise<void> {
    return this.terminal.close();
  }
}
