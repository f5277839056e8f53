import type { CgroupLimits } from './cgroup.js';
import { parseMemory } from './docker-engine.js';

const MiB = 1024 * 1024;
export const DEFAULT_MEMORY = 2048 * MiB;
export const DEFAULT_CPUS = 1;

/** The cgroup limits of a jail from its options (memory: bytes, `'2g'` or false; cpus: cores or false). */
export function cgroupLimits(options: { memory?: number | string | false; cpus?: number | false }, maxProcesses: number): CgroupLimits {
  const memory = options.memory === undefined ? DEFAULT_MEMORY : options.memory === false ? false : parseMemory(options.memory);
  const cpus = options.cpus ?? DEFAULT_CPUS;
  if (memory !== false && !(memory > 0)) throw new RangeError(`memory must be a positive number of bytes (or false), got ${memory}`);
  if (cpus !== false && !(cpus > 0)) throw new RangeError(`cpus must be a positive number of cores (or false), got ${cpus}`);
  if (!(maxProcesses >= 1)) throw new RangeError(`maxProcesses must be at least 1, got ${maxProcesses}`);
  return { memory, cpus, maxProcesses };
}

let warned = false;

/**
 * Without a cgroup (not root, or no writable hierarchy) the bubblewrap backend limits each process
 * (RLIMIT_AS, RLIMIT_NPROC) and the size of its tmpfs mounts, not the jail's total memory or CPU:
 * said once per process.
 */
export function warnLimitsOnce(maxMemoryBytes: number): void {
  if (warned) return;
  warned = true;
  const mib = Math.round(maxMemoryBytes / MiB);
  process.stderr.write(
    'debug-gym: no writable cgroup here (the bubblewrap sandbox needs root and a cgroup v1 or v2 hierarchy for them), so ' +
      `the bubblewrap sandbox caps memory per process (${mib} MiB of address space, maxMemoryBytes), ` +
      'the number of processes (maxProcesses) and the size of its working copy, /tmp and /dev/shm (tmpfs in memory); ' +
      'it does not cap the total memory or CPU of all its processes. Use the docker terminal for those.\n',
  );
}
