import cliProgress from 'cli-progress';
import Table from 'cli-table3';
import { loadPlugin, taskEnvOptions, type BenchmarkTask } from '@debug-gym/core';
import swesmith from '@debug-gym/bench-swesmith';
import { readmeTable, synthesize, type GeneratorChoice, type SynthInstance, type SynthReport } from '@debug-gym/synth';
import { createTerminal } from '@debug-gym/terminal';
import { checkTask } from '../check/check-task.js';
import { ConfigError } from '../config/config-error.js';

export interface SynthCommandOptions {
  out: string;
  seed?: number;
  max?: number;
  needsDebugger?: boolean;
  generators?: string;
  terminal?: string;
  workers?: number;
  maxCandidates?: number;
  name?: string;
  /** Tasks run through `debug-gym check`'s rules before the dataset is written (0: none; default 5). */
  check?: number;
}

/**
 * `--generators ast,ast/off-by-one,llm`: each entry names a synth plugin (`@debug-gym/synth-<name>`,
 * found by the plugin loader) and, after a slash, one of its operators.
 */
export async function resolveGenerators(spec: string): Promise<GeneratorChoice[]> {
  const chosen = new Map<string, GeneratorChoice>();
  for (const entry of spec.split(',').map((part) => part.trim()).filter(Boolean)) {
    const [name, operator] = entry.split('/', 2) as [string, string | undefined];
    if (!chosen.has(name)) chosen.set(name, { generator: await loadPlugin('synth', name, { parents: [import.meta.url] }), operators: [] });
    const choice = chosen.get(name) as GeneratorChoice;
    if (operator !== undefined) {
      if (!(choice.generator.operators ?? []).includes(operator)) {
        throw new ConfigError(`generator '${name}' has no operator '${operator}'. Its operators: ${(choice.generator.operators ?? []).join(', ')}.`);
      }
      (choice.operators as string[]).push(operator);
    }
  }
  if (chosen.size === 0) throw new ConfigError('--generators is empty: name at least one generator (e.g. ast).');
  return [...chosen.values()];
}

/** `debug-gym synth <repository> --out <dataset>`: synthesize validated debugging tasks and print what came of it. */
export async function runSynth(repository: string, options: SynthCommandOptions, stdout: NodeJS.WritableStream = process.stdout, stderr: NodeJS.WritableStream = process.stderr): Promise<SynthReport> {
  const generators = await resolveGenerators(options.generators ?? 'ast');
  const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
  const type = (options.terminal ?? 'auto') as Parameters<typeof createTerminal>[0]['type'];
  const bar = new cliProgress.SingleBar({ format: 'synth {phase} [{bar}] {value}/{total} | kept {kept} | {duration_formatted}', stream: stderr, noTTYOutput: false }, cliProgress.Presets.shades_classic);
  let phase = '';
  const report = await synthesize({
    repository,
    out: options.out,
    generators,
    python,
    createTerminal: () => createTerminal({ type, python }),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.max !== undefined ? { max: options.max } : {}),
    ...(options.needsDebugger ? { needsDebugger: true } : {}),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.maxCandidates !== undefined ? { maxCandidates: options.maxCandidates } : {}),
    ...(options.name ? { name: options.name } : {}),
    ...((options.check ?? 5) > 0 ? { healthCheck: (path: string, instances: readonly SynthInstance[]) => healthCheck(path, instances, options.check ?? 5, type, python) } : {}),
    log: (message) => void stderr.write(`${message}\n`),
    onProgress: (progress) => {
      if (progress.phase !== phase) {
        if (phase) bar.stop();
        phase = progress.phase;
        bar.start(progress.total, progress.done, { phase, kept: progress.kept });
      } else bar.update(progress.done, { kept: progress.kept });
    },
  }).finally(() => bar.stop());
  stdout.write(`${summaryTable(report)}\n`);
  stdout.write(`${readmeTable(report.counts)}\n\n`);
  stdout.write(`Wrote ${report.instances.length} tasks to ${report.instancesPath}. Run them: pnpm bench swesmith --dataset ${report.instancesPath} --agent solution\n`);
  return report;
}

function summaryTable(report: SynthReport): string {
  const minutes = report.durationMs.total / 60_000;
  const validateMinutes = report.durationMs.validate / 60_000;
  const needs = report.instances.filter((row) => row.synth.features.needs_debugger).length;
  const table = new Table({ head: ['tasks', 'needs a debugger', 'candidates tried', 'tried/min', 'tasks/min', 'kept', 'minutes'], style: { head: [], border: [] } });
  table.push([
    String(report.instances.length),
    `${needs} (${report.instances.length ? Math.round((100 * needs) / report.instances.length) : 0} %)`,
    `${report.tried} of ${report.candidates}`,
    validateMinutes > 0 ? (report.tried / validateMinutes).toFixed(1) : '-',
    minutes > 0 ? (report.instances.length / minutes).toFixed(1) : '-',
    report.tried ? `${Math.round((100 * report.instances.length) / report.tried)} %` : '-',
    minutes.toFixed(1),
  ]);
  return table.toString();
}

/**
 * `debug-gym check`'s rules (no-op fails, gold passes, time limit with room) on the first `sample`
 * tasks, loaded by the SWE-smith plugin from the file about to be written: what a user will run.
 */
async function healthCheck(instancesPath: string, instances: readonly SynthInstance[], sample: number, type: Parameters<typeof createTerminal>[0]['type'], python: string): Promise<Map<string, string[]>> {
  const ids = instances.slice(0, sample).map((row) => row.instance_id);
  const { tasks } = await swesmith.loadTasks({ dataPath: instancesPath, tasks: ids });
  const unhealthy = new Map<string, string[]>();
  for (const task of tasks as BenchmarkTask[]) {
    const health = await checkTask(task, {
      benchmark: swesmith,
      envOptions: (current) => taskEnvOptions(current),
      createTerminal: async () => createTerminal({ type, python }),
      sandboxed: type !== 'local',
      repeat: 1,
      minMargin: 3,
      timeoutRetries: 1,
    });
    if (health.verdict !== 'healthy') unhealthy.set(task.id, health.problems);
  }
  return unhealthy;
}
