import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** Process state letter (`R`, `S`, `Z`, ...). */
  state: string;
  ppid: number;
  pgid: number;
  /** Start time in clock ticks since boot: tells a reused pid apart. */
  start: string;
  /** Nice value. */
  nice: number;
}

/** Fields of `/proc/<pid>/stat` (Linux), or undefined when the process is gone or there is no /proc. */
export function procStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] as string, ppid: Number(fields[1]), pgid: Number(fields[2]), nice: Number(fields[16]), start: fields[19] as string };
  } catch {
    return undefined;
  }
}

/**
 * Is process `pid` alive and still the one that started at `start` (when given)? A pid with another
 * start time was reused by an unrelated process after the original died.
 */
export function processAlive(pid: number, start: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const actual = procStat(pid);
  if (actual?.state === 'Z') return false;
  return !(start && actual && actual.start !== start);
}
