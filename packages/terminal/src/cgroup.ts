/**
 * A cgroup for one bubblewrap jail: total memory (+ swap), processes and CPU of everything in it.
 * cgroup v1 (one directory per controller hierarchy) and v2 (one unified directory) share all but
 * the file names. The group is made below the owner's own cgroup, so the limits of whatever runs
 * the owner still hold. Only root (or a delegated hierarchy) can do this; `createJailCgroup`
 * returns undefined when it cannot, and the caller falls back to per-process rlimits.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

export const CGROUP_ROOT = '/sys/fs/cgroup';
/** Names of the cgroups debug-gym makes (gc removes nothing else). */
export const OWN_CGROUP = /^debug-gym-[0-9a-f]+$/;
const CPU_PERIOD_US = 100_000;
const CONTROLLERS = ['memory', 'pids', 'cpu'] as const;
type Controller = (typeof CONTROLLERS)[number];

export interface CgroupLimits {
  /** Total memory of the group in bytes (swap included), or false for none. */
  memory: number | false;
  /** Processes and threads at once. */
  maxProcesses: number;
  /** CPU cores (a CFS quota), or false for none. */
  cpus: number | false;
}

export interface JailCgroup {
  version: 1 | 2;
  /** Every directory of the group: one per hierarchy on v1, one on v2. A process joins them all. */
  paths: string[];
}

/** Where the cgroup file systems are and which file names the owner's cgroups (tests use a fake tree). */
export interface CgroupHost {
  root: string;
  self: string;
}

const HOST: CgroupHost = { root: CGROUP_ROOT, self: '/proc/self/cgroup' };

/** The owner's cgroup path in each hierarchy of /proc/self/cgroup (`''` for v2's unified one). */
function ownCgroups(self: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of readFileSync(self, 'utf8').split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of (match[1] as string).split(',')) own.set(controller, match[2] as string);
  }
  return own;
}

function write(dir: string, file: string, value: string): void {
  writeFileSync(join(dir, file), value);
}

function controllersOf(dir: string): string[] {
  return readFileSync(join(dir, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
}

/** Writes the limits; the files a controller does not need are not touched. */
function writeLimits(version: 1 | 2, controller: Controller, dir: string, limits: CgroupLimits): void {
  if (controller === 'pids') write(dir, 'pids.max', String(Math.floor(limits.maxProcesses)));
  if (controller === 'memory' && limits.memory !== false) {
    const bytes = String(Math.floor(limits.memory));
    write(dir, version === 1 ? 'memory.limit_in_bytes' : 'memory.max', bytes);
    // No swap on top: memsw counts memory + swap (v1, when swap accounting is on); v2 counts swap alone.
    if (version === 1 && existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) write(dir, 'memory.memsw.limit_in_bytes', bytes);
    if (version === 2 && existsSync(join(dir, 'memory.swap.max'))) write(dir, 'memory.swap.max', '0');
  }
  if (controller === 'cpu' && limits.cpus !== false) {
    const quota = String(Math.max(1000, Math.round(limits.cpus * CPU_PERIOD_US)));
    if (version === 2) write(dir, 'cpu.max', `${quota} ${CPU_PERIOD_US}`);
    else {
      write(dir, 'cpu.cfs_period_us', String(CPU_PERIOD_US));
      write(dir, 'cpu.cfs_quota_us', quota);
    }
  }
}

/** The controllers a group needs for these limits. */
function needed(limits: CgroupLimits): Controller[] {
  return CONTROLLERS.filter((name) => (name === 'memory' ? limits.memory !== false : name === 'cpu' ? limits.cpus !== false : true));
}

/** v2: a sibling of the owner's cgroup when its parent already hands the controllers down, else a child (root only). */
function createV2(name: string, limits: CgroupLimits, own: Map<string, string>, root: string): JailCgroup {
  const wanted = needed(limits);
  const ownPath = own.get('') ?? '/';
  const ownDir = join(root, ownPath);
  let base = ownDir;
  if (ownPath !== '/' && wanted.every((controller) => controllersOf(ownDir).includes(controller))) base = join(ownDir, '..');
  else write(base, 'cgroup.subtree_control', wanted.map((controller) => `+${controller}`).join(' '));
  const dir = join(base, name);
  mkdirSync(dir);
  const group: JailCgroup = { version: 2, paths: [dir] };
  try {
    for (const controller of wanted) writeLimits(2, controller, dir, limits);
  } catch (error) {
    rmdirSync(dir);
    throw error;
  }
  return group;
}

function createV1(name: string, limits: CgroupLimits, own: Map<string, string>, root: string): JailCgroup {
  const group: JailCgroup = { version: 1, paths: [] };
  try {
    for (const controller of needed(limits)) {
      const dir = join(root, controller, own.get(controller) ?? '/', name);
      mkdirSync(dir);
      group.paths.push(dir);
      writeLimits(1, controller, dir, limits);
    }
  } catch (error) {
    for (const dir of group.paths) rmdirSync(dir);
    throw error;
  }
  return group;
}

/** The jail's cgroup with its limits written, or undefined when no hierarchy here lets us (not root, read-only, no controller). */
export function createJailCgroup(name: string, limits: CgroupLimits, host: CgroupHost = HOST): JailCgroup | undefined {
  if (!OWN_CGROUP.test(name)) throw new RangeError(`cgroup name must match ${String(OWN_CGROUP)}, got '${name}'`);
  try {
    const own = ownCgroups(host.self);
    if (existsSync(join(host.root, 'cgroup.controllers'))) return createV2(name, limits, own, host.root);
    if (CONTROLLERS.every((controller) => existsSync(join(host.root, controller, 'cgroup.procs')))) return createV1(name, limits, own, host.root);
  } catch {
    // not permitted here: the caller falls back to rlimits
  }
  return undefined;
}

function members(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Kill whatever is still in the cgroup (v2's cgroup.kill, else SIGKILL each member), wait until it is
 * empty, and remove it. False when it is still there after `attempts` rounds (about 20 ms each).
 */
export async function removeCgroup(dir: string, attempts = 500): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (!existsSync(dir)) return true;
    const pids = members(dir);
    if (pids.length === 0) {
      try {
        rmdirSync(dir);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      }
    } else if (existsSync(join(dir, 'cgroup.kill'))) {
      writeFileSync(join(dir, 'cgroup.kill'), '1');
    } else {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
    await sleep(20);
  }
  return !existsSync(dir);
}

/** A path gc may remove: a `debug-gym-<hex>` directory under /sys/fs/cgroup, any hierarchy, no `..`. */
export function isOwnCgroup(path: string): boolean {
  const parts = path.split('/');
  return path.startsWith(`${CGROUP_ROOT}/`) && !parts.includes('..') && OWN_CGROUP.test(parts.at(-1) ?? '');
}
