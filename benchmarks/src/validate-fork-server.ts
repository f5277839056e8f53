/**
 * `pnpm validate:fork-server`: proof that the fork server changes no observation. Every task of
 * mini-nightmare, the Aider exercises and a SWE-bench instance built offline runs twice on the real
 * env, once with the fork server and once with cold commands: reset, `eval` untouched, the known fix
 * replayed through `rewrite`, `eval` again. The eval outputs (timings and addresses normalized), exit
 * codes, scores and max scores must be equal. Not part of `pnpm test` (it takes minutes).
 *
 * With standbys (the default, `--standbys off` forks every run fresh) the forked episode leaves the
 * sandbox idle for a moment before each eval, so the fork server has a standby ready for it; the
 * table counts the evals that ran on one (a busy machine may leave some on a fresh fork: they are
 * compared all the same).
 */
import { Command, Option } from 'commander';
import { RepoEnv, runSolution, taskEnvOptions, type BenchmarkTask, type BenchmarkV1, type EnvInfo, type Terminal } from '@debug-gym/core';
import aider from '@debug-gym/bench-aider';
import miniNightmare from '@debug-gym/bench-mini-nightmare';
import evalTool from '@debug-gym/tool-eval';
import rewriteTool from '@debug-gym/tool-rewrite';
import { BACKENDS, type BackendName, defaultBackendSettings, makeTerminal, warmZygote } from './backends.js';
import { createProgress } from './progress.js';
import { defaultDataPath } from './options.js';
import { syntheticSwebenchTask } from './synthetic-swebench.js';
import Table from 'cli-table3';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DockerTerminal } from '@debug-gym/terminal';

/** `shared/data/<name>` beside the checkout (or under DEBUG_GYM_SHARED_DATA). */
function sharedDataDir(name: string): string {
  return join(dirname(defaultDataPath()), name);
}

const SUITES = ['mini-nightmare', 'aider', 'swebench'] as const;
type Suite = (typeof SUITES)[number];

interface Snapshot {
  output: string;
  exitCode: number | null;
  score: number;
  maxScore: number | null;
  via: string;
  standby: boolean;
  reason?: string;
}

interface Episode {
  reset: Snapshot;
  untouched: Snapshot;
  fixed: Snapshot | null;
  /** The local backend's fork server was forked by the zygote (local-zygote.ts), not started. */
  zygote: boolean;
}

interface TaskOutcome {
  suite: Suite;
  task: string;
  equal: boolean;
  /** The cold path disagrees with itself (a test that is not deterministic): not the fork server's doing. */
  nondeterministic: boolean;
  forked: number;
  /** Forked evals that ran on a standby (a child the fork server forked ahead). */
  standby: number;
  cold: number;
  /** Forked episodes whose (local) fork server the zygote forked. */
  zygote: number;
  reasons: string[];
  difference?: string;
}

/** What differs between two runs of the same command anyway: durations, object addresses. */
export function normalize(text: string): string {
  return text
    .replace(/\b\d+(\.\d+)?s\b/g, 'Ns')
    .replace(/0x[0-9a-f]{6,}/gi, '0x…');
}

function snapshot(info: EnvInfo): Snapshot {
  const launch = info.lastEval?.launch;
  return {
    output: normalize(info.lastEval?.output ?? ''),
    exitCode: info.lastEval?.exitCode ?? null,
    score: info.score,
    maxScore: info.maxScore,
    via: launch?.via ?? 'cold',
    standby: launch?.standby === true,
    ...(launch?.reason ? { reason: launch.reason } : {}),
  };
}

/** How the fork server runs the episode: not at all, a fresh fork per run, or standbys (idle before each eval). */
type Mode = 'cold' | 'fresh' | 'standbys';
/** Idle time before an eval in `standbys` mode: the server forks a standby after 20 ms idle, which then copies ~10 ms. */
const STANDBY_PAUSE_MS = 150;

async function episode(task: BenchmarkTask, benchmark: BenchmarkV1, terminal: Terminal, mode: Mode, solutionsDir?: string): Promise<Episode> {
  const env = new RepoEnv({ ...taskEnvOptions(task), terminal, tools: [evalTool, rewriteTool], forkServer: mode !== 'cold', forkStandbys: mode === 'standbys' });
  const paced = {
    reset: () => env.reset(),
    step: async (call: { name: string; arguments: Record<string, unknown> }): Promise<EnvInfo> => {
      if (mode === 'standbys' && call.name === 'eval') await new Promise((resolve) => setTimeout(resolve, STANDBY_PAUSE_MS));
      return env.step(call);
    },
  };
  try {
    const reset = snapshot(await env.reset());
    const origin = (terminal as Terminal & { forkServerOrigin?: object }).forkServerOrigin;
    const zygote = origin !== undefined && 'zygote' in origin;
    const untouched = snapshot(await paced.step({ name: 'eval', arguments: {} }));
    const calls = await benchmark.solution?.(task, solutionsDir ? { solutionsDir } : {});
    const fixed = calls ? snapshot((await runSolution(paced, calls, { info: await paced.step({ name: 'eval', arguments: {} }) })).info) : null;
    return { reset, untouched, fixed, zygote };
  } finally {
    await env.close();
  }
}

function sameObservations(a: Episode, b: Episode): string | null {
  for (const key of ['reset', 'untouched', 'fixed'] as const) {
    const [x, y] = [a[key], b[key]];
    if (!x || !y) {
      if (x !== y) return `${key}: one run has no result`;
      continue;
    }
    for (const field of ['output', 'exitCode', 'score', 'maxScore'] as const) {
      if (x[field] !== y[field]) return `${key}.${field}: ${JSON.stringify(x[field]).slice(0, 300)} vs ${JSON.stringify(y[field]).slice(0, 300)}`;
    }
  }
  return null;
}

async function validateTask(suite: Suite, task: BenchmarkTask, benchmark: BenchmarkV1, create: () => Promise<Terminal>, mode: Exclude<Mode, 'cold'>): Promise<TaskOutcome> {
  const forked = await episode(task, benchmark, await create(), mode);
  const cold = await episode(task, benchmark, await create(), 'cold');
  const snapshots = [forked.reset, forked.untouched, forked.fixed].filter((item): item is Snapshot => item !== null);
  const outcome: TaskOutcome = {
    suite,
    task: task.id,
    equal: true,
    nondeterministic: false,
    forked: snapshots.filter((item) => item.via === 'fork-server').length,
    standby: snapshots.filter((item) => item.standby).length,
    cold: snapshots.filter((item) => item.via !== 'fork-server').length,
    zygote: forked.zygote ? 1 : 0,
    reasons: [...new Set(snapshots.map((item) => item.reason).filter((reason): reason is string => !!reason))],
  };
  const difference = sameObservations(forked, cold);
  if (difference) {
    // Is it the fork server, or does the task differ from run to run anyway?
    const again = await episode(task, benchmark, await create(), 'cold');
    outcome.nondeterministic = sameObservations(cold, again) !== null;
    outcome.equal = false;
    outcome.difference = difference;
  }
  return outcome;
}

async function tasksOf(suite: Suite, terminal: BackendName, only: string[] | undefined): Promise<{ benchmark: BenchmarkV1; tasks: BenchmarkTask[]; make?: () => Promise<Terminal> }> {
  const options = only ? { tasks: only } : {};
  if (suite === 'mini-nightmare') {
    const dataset = await miniNightmare.loadTasks({ dataPath: sharedDataDir('mini_nightmare'), download: false });
    // pandas_dataframe reads a CSV from the internet: sandboxes have none, both paths fail the same way.
    return { benchmark: miniNightmare, tasks: dataset.tasks.filter((task) => !only || only.includes(task.id)) };
  }
  if (suite === 'aider') {
    const dataset = await aider.loadTasks({ dataPath: sharedDataDir('aider'), download: false, ...options });
    return { benchmark: aider, tasks: dataset.tasks };
  }
  if (terminal !== 'docker') return { benchmark: miniNightmare, tasks: [] };
  const synthetic = await syntheticSwebenchTask();
  return {
    benchmark: synthetic.benchmark,
    tasks: [synthetic.task],
    make: async () => new DockerTerminal({ image: synthetic.image, workdir: synthetic.task.docker?.workdir ?? '/testbed', python: 'python3', env: synthetic.task.docker?.env ?? {} }),
  };
}

async function main(): Promise<void> {
  const program = new Command('validate-fork-server')
    .addOption(new Option('--terminal <name>', 'backend').choices([...BACKENDS, 'all']).default('local'))
    .option('--suite <names>', `comma list of ${SUITES.join(', ')}`, SUITES.join(','))
    .option('--tasks <ids>', 'only these task ids (comma list)')
    .option('--concurrency <n>', 'tasks at once', '2')
    .option('--json <file>', 'write every task outcome as JSON')
    .addOption(new Option('--standbys <on|off>', 'fork server standbys (off: every run is a fresh fork)').choices(['on', 'off']).default('on'))
    .addOption(new Option('--zygote <on|off>', "local: each sandbox's fork server forked by the zygote (off: started)").choices(['on', 'off']).default('on'))
    .parse();
  const options = program.opts<{ terminal: string; suite: string; tasks?: string; concurrency: string; json?: string; standbys: 'on' | 'off'; zygote: 'on' | 'off' }>();
  const zygote = options.zygote === 'on';
  const mode = options.standbys === 'on' ? 'standbys' : 'fresh';
  const settings = defaultBackendSettings();
  const terminals = (options.terminal === 'all' ? [...BACKENDS] : [options.terminal]) as BackendName[];
  const suites = options.suite.split(',').map((name) => name.trim()) as Suite[];
  const only = options.tasks?.split(',').map((id) => id.trim());
  const outcomes: Array<TaskOutcome & { terminal: BackendName }> = [];
  const started = Date.now();
  for (const terminal of terminals) {
    if (zygote) await warmZygote(terminal, settings);
    for (const suite of suites) {
      const { benchmark, tasks, make } = await tasksOf(suite, terminal, only);
      if (tasks.length === 0) continue;
      const progress = createProgress(true);
      progress.plan(tasks.length);
      progress.phase(`${terminal} ${suite}`);
      const queue = [...tasks];
      const worker = async (): Promise<void> => {
        for (let task = queue.shift(); task; task = queue.shift()) {
          try {
            outcomes.push({ terminal, ...(await validateTask(suite, task, benchmark, make ?? (() => makeTerminal(terminal, settings, { zygote })), mode)) });
          } catch (error) {
            outcomes.push({ terminal, suite, task: task.id, equal: false, nondeterministic: false, forked: 0, standby: 0, cold: 0, zygote: 0, reasons: [], difference: `failed: ${(error as Error).message}` });
          }
          progress.tick();
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Number(options.concurrency)) }, worker));
      progress.stop();
    }
  }
  const table = new Table({ head: ['terminal', 'suite', 'tasks', 'equal', 'different', 'nondeterministic anyway', 'evals forked', 'of them on a standby', 'evals cold', 'servers from the zygote'] });
  for (const terminal of terminals) {
    for (const suite of suites) {
      const rows = outcomes.filter((item) => item.terminal === terminal && item.suite === suite);
      if (rows.length === 0) continue;
      const differing = rows.filter((item) => !item.equal);
      table.push([terminal, suite, rows.length, rows.length - differing.length, differing.filter((item) => !item.nondeterministic).length,
        differing.filter((item) => item.nondeterministic).length, rows.reduce((sum, item) => sum + item.forked, 0),
        rows.reduce((sum, item) => sum + item.standby, 0), rows.reduce((sum, item) => sum + item.cold, 0),
        terminal === 'local' ? rows.reduce((sum, item) => sum + item.zygote, 0) : '–']);
    }
  }
  console.log(table.toString());
  for (const item of outcomes.filter((entry) => !entry.equal)) {
    console.log(`${item.nondeterministic ? 'nondeterministic' : 'DIFFERENT'} ${item.terminal} ${item.suite} ${item.task}: ${item.difference}`);
  }
  const reasons = new Map<string, number>();
  for (const item of outcomes) for (const reason of item.reasons) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  for (const [reason, count] of reasons) console.log(`cold fallback (${count} tasks): ${reason}`);
  console.log(`${outcomes.length} tasks in ${Math.round((Date.now() - started) / 1000)} s`);
  if (options.json) await writeFile(options.json, `${JSON.stringify(outcomes, null, 2)}\n`);
  process.exitCode = outcomes.some((item) => !item.equal && !item.nondeterministic) ? 1 : 0;
}

await main();
