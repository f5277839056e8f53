/**
 * CPU time and memory of this process's descendants (the local and bubblewrap sandboxes' processes),
 * read from /proc. Linux only; elsewhere every reading is null.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's utime/stime fields (USER_HZ is 100 on every Linux port). */
const TICKS_PER_SECOND = 100;
const PAGE_BYTES = 4096;

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime of the process itself, in ticks. */
  selfTicks: number;
  /** cutime + cstime: its waited-for children, in ticks. */
  childTicks: number;
  rssBytes: number;
}

/**
 * CPU milliseconds the whole machine has spent so far (every process: user, nice, system, irq,
 * softirq from the first line of /proc/stat); null where there is no /proc/stat.
 */
export function machineCpuMs(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
    return ((user + nice + system + irq + softirq) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

function readStat(pid: string): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: parse after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const num = (index: number): number => Number(fields[index - 3]);
    return { pid: Number(pid), ppid: num(4), selfTicks: num(14) + num(15), childTicks: num(16) + num(17), rssBytes: num(24) * PAGE_BYTES };
  } catch {
    return null; // gone between readdir and read
  }
}

function allStats(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const stats: ProcStat[] = [];
  for (const name of names) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    const stat = readStat(name);
    if (stat) stats.push(stat);
  }
  return stats;
}

export interface TreeReading {
  /** Resident memory of the live descendants, in bytes. */
  rssBytes: number;
  processes: number;
  /** utime+stime+cutime+cstime of each live descendant, in ticks, with its parent. */
  cpu: Map<number, { ppid: number; ticks: number }>;
  /** cutime+cstime of the root: the descendants it has waited for. */
  rootChildTicks: number;
  root: number;
}

/** One reading of the process tree under `root` (default: this process). */
export function readTree(root: number = process.pid): TreeReading | null {
  if (process.platform !== 'linux') return null;
  const stats = allStats();
  const children = new Map<number, ProcStat[]>();
  let self: ProcStat | undefined;
  for (const stat of stats) {
    if (stat.pid === root) self = stat;
    const list = children.get(stat.ppid);
    if (list) list.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  if (!self) return null;
  const cpu = new Map<number, { ppid: number; ticks: number }>();
  let rssBytes = 0;
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const stat = stack.pop() as ProcStat;
    cpu.set(stat.pid, { ppid: stat.ppid, ticks: stat.selfTicks + stat.childTicks });
    rssBytes += stat.rssBytes;
    stack.push(...(children.get(stat.pid) ?? []));
  }
  return { rssBytes, processes: cpu.size, cpu, rootChildTicks: self.childTicks, root };
}

/**
 * CPU milliseconds the descendants used between two readings. A live process counts what it added
 * (its own time and its waited-for children's); a process that ended counts through the one that
 * waited for it (this process's cutime, or a live parent's), minus what it had at `before`. A
 * process whose waiter died too (a killed sandbox) loses its last slice instead of going negative.
 */
export function treeCpuDeltaMs(before: TreeReading, after: TreeReading): number {
  let ticks = after.rootChildTicks - before.rootChildTicks;
  for (const [pid, now] of after.cpu) ticks += now.ticks - (before.cpu.get(pid)?.ticks ?? 0);
  for (const [pid, then] of before.cpu) {
    if (after.cpu.has(pid)) continue;
    const waitedFor = then.ppid === before.root || after.cpu.has(then.ppid);
    if (waitedFor) ticks -= then.ticks;
  }
  return (Math.max(0, ticks) * 1000) / TICKS_PER_SECOND;
}

/** CPU milliseconds (user + system) this Node process has used. */
export function nodeCpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
