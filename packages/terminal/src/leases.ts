/**
 * Leases: every started sandbox keeps a small JSON file naming its owner (pid + start time) and the
 * host resources it holds (process groups, temp dirs, cgroups), so `gc()` can reclaim them after
 * the owner was SIGKILLed. Writes are atomic (rename) and not fsynced: a lease only has to outlive
 * its owner process, not the machine.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { procStat } from './process-identity.js';

/** A process group and the start time of its leader (a reused pgid is not ours). */
export interface LeasedGroup {
  pgid: number;
  start?: string;
}

export interface LeaseRecord {
  version: 1;
  id: string;
  backend: string;
  owner: { pid: number; start?: string; host: string };
  /** Processes of this sandbox carry `<name>=<value>` in their environment (found even after setsid). */
  marker?: { variable: string; value: string };
  groups: LeasedGroup[];
  /** Host directories to remove (only `debug-gym-*` temp dirs are ever removed). */
  dirs: string[];
  /** cgroup directories to kill and remove (v2: one; v1: one per controller hierarchy). */
  cgroups: string[];
}

/**
 * Where leases live: `$DEBUG_GYM_LEASE_DIR`, else `$XDG_RUNTIME_DIR/debug-gym/leases`, else
 * `<tmpdir>/debug-gym-leases-<uid>`.
 */
export function leaseDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEBUG_GYM_LEASE_DIR) return env.DEBUG_GYM_LEASE_DIR;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'debug-gym', 'leases');
  return join(tmpdir(), `debug-gym-leases-${process.getuid?.() ?? 'user'}`);
}

/**
 * The lease directory when it is safe to trust: a real directory (not a symlink) owned by this user
 * and closed to everyone else. Created (0700) when missing. Undefined when it cannot be trusted.
 */
export function trustedLeaseDirectory(dir: string, create: boolean): string | undefined {
  if (create) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      return undefined;
    }
  }
  const stats = lstatSync(dir, { throwIfNoEntry: false });
  if (!stats?.isDirectory()) return undefined;
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return undefined;
  if ((stats.mode & 0o077) !== 0) return undefined;
  return dir;
}

let warnedUntrusted = false;

/** One sandbox's lease. All updates rewrite the whole (small) file synchronously, so they never interleave. */
export class Lease {
  private readonly record: LeaseRecord;
  private released = false;

  private constructor(
    private readonly dir: string | undefined,
    backend: string,
  ) {
    const start = procStat(process.pid)?.start;
    this.record = {
      version: 1,
      id: randomBytes(8).toString('hex'),
      backend,
      owner: { pid: process.pid, ...(start ? { start } : {}), host: hostname() },
      groups: [],
      dirs: [],
      cgroups: [],
    };
  }

  /**
   * A new lease for a sandbox of `backend`, written at once. When the lease directory cannot be
   * trusted (another user owns it) the lease lives in memory only, with a one-time warning.
   */
  static open(backend: string, dir: string = leaseDirectory()): Lease {
    const trusted = trustedLeaseDirectory(dir, true);
    if (!trusted && !warnedUntrusted) {
      warnedUntrusted = true;
      process.stderr.write(`debug-gym: not writing sandbox leases: ${dir} is not a private directory of this user, so \`debug-gym gc\` cannot reclaim what a killed run leaves.\n`);
    }
    const lease = new Lease(trusted, backend);
    lease.save();
    return lease;
  }

  get id(): string {
    return this.record.id;
  }

  get file(): string | undefined {
    return this.dir ? join(this.dir, `${this.record.id}.json`) : undefined;
  }

  /** Processes of the sandbox carry `<variable>=<value>` in their environment. */
  markProcesses(variable: string, value: string): void {
    this.record.marker = { variable, value };
    this.save();
  }

  addGroup(pgid: number): void {
    const start = procStat(pgid)?.start;
    this.record.groups.push({ pgid, ...(start ? { start } : {}) });
    this.save();
  }

  removeGroup(pgid: number): void {
    this.record.groups = this.record.groups.filter((group) => group.pgid !== pgid);
    this.save();
  }

  addDir(path: string): void {
    this.record.dirs.push(path);
    this.save();
  }

  addCgroup(path: string): void {
    this.record.cgroups.push(path);
    this.save();
  }

  /** The sandbox released everything: drop the lease. */
  release(): void {
    this.released = true;
    const file = this.file;
    if (!file) return;
    rmSync(file, { force: true });
    // Leave no empty directory behind; another process's lease keeps it (ENOTEMPTY).
    try {
      rmdirSync(this.dir as string);
    } catch {
      // not empty, or gone
    }
  }

  private save(): void {
    const file = this.file;
    if (!file || this.released) return;
    const temporary = `${file}.${process.pid}.tmp`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(temporary, JSON.stringify(this.record), { mode: 0o600 });
        renameSync(temporary, file);
        return;
      } catch (error) {
        // Another sandbox's release() removed the (then empty) directory: make it again, once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !trustedLeaseDirectory(this.dir as string, true)) return;
      }
    }
    // Best effort: a full disk must not fail the command the lease describes.
  }
}

export interface StoredLease {
  file: string;
  record: LeaseRecord;
}

/** Leases in `dir` (unreadable or malformed files are skipped; partial writes end in `.tmp`). */
export function readLeases(dir: string): StoredLease[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const leases: StoredLease[] = [];
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const file = join(dir, name);
    try {
      const record = JSON.parse(readFileSync(file, 'utf8')) as LeaseRecord;
      if (record.version === 1 && typeof record.owner?.pid === 'number') leases.push({ file, record });
    } catch {
      // a lease being replaced or removed right now
    }
  }
  return leases;
}
