import { readdir, readFile } from 'node:fs/promises';
import { procStat } from './process-identity.js';

/** Environment variable every process of a local terminal inherits, to find them all at close(). */
export const TERMINAL_ID_VARIABLE = 'DEBUG_GYM_TERMINAL_ID';

const MAX_ROUNDS = 10;
const QUIET_SCANS = 2;
const RESCAN_DELAY_MS = 10;

/**
 * SIGKILL every process whose initial environment carries `<variable>=<id>` (default
 * `DEBUG_GYM_TERMINAL_ID`): catches what left its process group (`setsid`, double fork). Best
 * effort: a process that dropped its environment (`env -i`) is not found. Linux only (needs /proc);
 * a no-op elsewhere. Returns how many processes it killed.
 */
export async function killMarkedProcesses(id: string, variable: string = TERMINAL_ID_VARIABLE): Promise<number> {
  let killed = 0;
  let quietScans = 0;
  for (let round = 0; round < MAX_ROUNDS && quietScans < QUIET_SCANS; round++) {
    const pids = await markedProcesses(id, variable);
    if (pids.length === 0) {
      // A process in the middle of execve() shows an empty environment: look once more.
      if (++quietScans < QUIET_SCANS) await new Promise((resolve) => setTimeout(resolve, RESCAN_DELAY_MS));
      continue;
    }
    quietScans = 0;
    for (const pid of pids) if (kill(pid)) killed++;
  }
  return killed;
}

/** Pids of the processes whose environment carries `<variable>=<id>`. */
export async function markedProcesses(id: string, variable: string = TERMINAL_ID_VARIABLE): Promise<number[]> {
  const marker = Buffer.from(`${variable}=${id}\0`);
  return findProcesses((_pid, environ) => hasVariable(environ(), marker));
}

/** Pids of the live members of process group `pgid` whose environment passes `accept`. */
export async function groupMembers(pgid: number, accept: (environ: Buffer) => boolean = () => true): Promise<number[]> {
  return findProcesses((pid, environ) => procStat(pid)?.pgid === pgid && accept(environ()));
}

/** Does this `/proc/<pid>/environ` content hold `<variable>=<id>`? */
export function carriesMarker(environ: Buffer, variable: string, id: string): boolean {
  return hasVariable(environ, Buffer.from(`${variable}=${id}\0`));
}

/** SIGKILL one process; false when it was already gone. */
export function kill(pid: number): boolean {
  try {
    process.kill(pid, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}

type Filter = (pid: number, environ: () => Buffer) => boolean;

/** Every pid in /proc but our own (none without /proc). */
async function listPids(): Promise<number[]> {
  try {
    return (await readdir('/proc')).map(Number).filter((pid) => Number.isInteger(pid) && pid !== process.pid);
  } catch {
    return [];
  }
}

async function findProcesses(filter: Filter): Promise<number[]> {
  const found = await Promise.all(
    (await listPids()).map(async (pid) => {
      try {
        const environ = await readFile(`/proc/${pid}/environ`);
        return filter(pid, () => environ) ? pid : undefined;
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

function hasVariable(environ: Buffer, marker: Buffer): boolean {
  if (environ.subarray(0, marker.length).equals(marker)) return true;
  return environ.indexOf(Buffer.concat([Buffer.from([0]), marker])) !== -1;
}
