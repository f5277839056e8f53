/** The JSON a run writes (`--json`): machine, options, and per backend the rows and throughput runs. */
import type { CallCounts } from './instrumented-terminal.js';

export const REPORT_FORMAT = 'debug-gym-perf/1';

export type Section = 'reset' | 'step' | 'cold' | 'fork' | 'overhead' | 'terminal' | 'pdb-protocol';

export interface Row {
  /** Stable across runs (the key `--compare` matches on), e.g. `step.view`, `terminal.run-true`. */
  id: string;
  section: Section;
  label: string;
  /** Measured samples (warm-up runs excluded). */
  n: number;
  /** Wall time, milliseconds. */
  median: number;
  p95: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
  /** Mean CPU milliseconds (user + system) per operation: this Node process, and the sandbox's processes (null when unknown). */
  cpuNodeMs: number | null;
  cpuSandboxMs: number | null;
  /** Mean terminal calls per operation (runs, file operations, PTY writes...). */
  calls: CallCounts | null;
  /** Mean wall milliseconds spent inside terminal calls per operation, by kind (overlapping calls add up). */
  terminalMs: Record<string, number> | null;
  /** Samples whose observation did not show what the row claims (e.g. pdb restarted instead of stopping). */
  unexpected: number;
  note?: string;
}

export interface ThroughputRun {
  /** Episodes run at the same time. */
  parallel: number;
  /** Scripted steps per episode (after reset). */
  steps: number;
  /** Wall time from the first reset to the last close, milliseconds. */
  wallMs: number;
  episodesPerMinute: number;
  stepsPerSecond: number;
  /** Peak resident memory of this Node process during the run. */
  nodePeakRssMb: number;
  /** Peak of the summed resident memory of every live sandbox process / container during the run (sampled). */
  sandboxPeakRssMb: number | null;
  /** CPU milliseconds the whole machine spent during the run (/proc/stat: every process, ours and others'); null off Linux. */
  machineCpuMs: number | null;
  /** Steps whose observation was not what the script expected, and episodes that threw. */
  unexpected: number;
  failures: number;
  /** False: the envs ran with `forkServer: false` (every Python process cold). Absent in older reports: true. */
  forkServer?: boolean;
  /** False: the fork server forked every run fresh (`forkStandbys: false`). Absent: standbys (or no fork server). */
  standbys?: boolean;
  /** False: each local sandbox started its own fork server (`forkZygote: false`). Absent: the zygote's (local) or n/a. */
  zygote?: boolean;
}

export interface BackendReport {
  terminal: string;
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  /** Interpreter inside the sandbox, and its version line. */
  python: string;
  pythonVersion: string | null;
  image?: string;
  durationMs: number;
  rows: Row[];
  throughput: ThroughputRun[];
}

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  os: string;
  kernel: string;
  node: string;
  /** `DEBUG_GYM_PYTHON` or `python3`, resolved, with its version. */
  python: string;
  pythonVersion: string | null;
  docker: string | null;
  bubblewrap: string | null;
  /** 1, 5 and 15 minute load averages at the start and the end of the run. */
  loadStart: number[];
  loadEnd: number[];
}

export interface PerfReport {
  format: typeof REPORT_FORMAT;
  createdAt: string;
  command: string;
  options: {
    terminals: string[];
    repeat: number;
    warmup: number;
    primitiveRepeat: number;
    overheadRepeat: number;
    parallel: number[];
    task: string;
    dataPath: string;
  };
  machine: MachineInfo;
  durationMs: number;
  /** Peak resident memory of this Node process over the whole run. */
  nodeMaxRssMb: number;
  backends: BackendReport[];
}
