import { readdirSync } from 'node:fs';
import { procStat } from './process-identity.js';

/**
 * SIGKILL a whole process group, and every process below its leader: a sandbox's processes may have
 * left the group (bubblewrap's --new-session), never the leader's tree. A group that is already
 * gone is fine.
 */
export function killGroup(pgid: number): void {
  const below = descendants(pgid);
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left to kill.
  }
  for (const pid of below) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

/** The processes below `pid` (children, grandchildren, ...), from /proc; none without /proc. */
export function descendants(pid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    const child = Number(name);
    if (!Number.isInteger(child)) continue;
    const parent = procStat(child)?.ppid;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  for (let queue = [...(children.get(pid) ?? [])]; queue.length > 0; ) {
    const next = queue.shift() as number;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}
