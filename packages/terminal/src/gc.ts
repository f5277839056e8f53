import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, posix } from 'node:path';
import { isOwnCgroup, removeCgroup } from './cgroup.js';
import { hostname } from 'node:os';
import { type DockerConnection, dockerAvailable, gcContainers } from './docker-engine.js';
import { KUBERNETES_PACKAGE } from './create-terminal.js';
import { importOptionalPackage } from './optional-package.js';
import { type LeaseRecord, type StoredLease, leaseDirectory, readLeases, trustedLeaseDirectory } from './leases.js';
import { procStat, processAlive } from './process-identity.js';
import { descendants } from './kill-group.js';
import { carriesMarker, groupMembers, kill, killMarkedProcesses, markedProcesses } from './stray-processes.js';

export type ReclaimedKind = 'process' | 'dir' | 'cgroup' | 'container' | 'pod' | 'lease';

export interface Reclaimed {
  kind: ReclaimedKind;
  /** Pid, path, container id or `namespace/pod`. */
  what: string;
  /** The sandbox's backend (`docker` for containers). */
  backend: string;
  /** Pid of the dead owner (the driver that was killed). */
  owner?: number;
}

export interface GcOptions {
  /** Lease directory (default: see `leaseDirectory()`). */
  leaseDir?: string;
  /** Report what would be reclaimed, change nothing. */
  dryRun?: boolean;
  /** Also remove orphaned Docker containers (default true when an engine answers). */
  containers?: boolean;
  docker?: DockerConnection;
  /**
   * Also delete debug-gym's Kubernetes pods whose lease ran out (or whose owner on this host is
   * dead), through @debug-gym/terminal-kubernetes (loaded only then): `true` for the current
   * kubeconfig context's namespace, or `{ namespace, context, kubeconfig }`.
   */
  kubernetes?: boolean | KubernetesGcTarget;
}

/** Where `gc({ kubernetes })` looks for pods. */
export interface KubernetesGcTarget {
  namespace?: string;
  context?: string;
  /** A kubeconfig file (default: KUBECONFIG, ~/.kube/config, or the in-cluster config). */
  kubeconfig?: string;
}

/** What `gc()` uses of the Kubernetes backend's package. */
interface KubernetesGcModule {
  gcPods(options: KubernetesGcTarget & { dryRun?: boolean }): Promise<Reclaimed[]>;
}

export interface GcReport {
  reclaimed: Reclaimed[];
  /** Leases whose owner is still alive (left alone). */
  live: number;
}

/** Only directories debug-gym itself creates in a temp dir are ever removed (sandboxes, the local zygote's). */
const OWN_DIR = /^(debug-gym|dg-zygote)-[\w-]+$/;

/**
 * Reclaim what sandboxes of dead owners (a driver that was SIGKILLed or crashed) left behind: kill
 * their processes, remove their temp dirs and cgroups, and (by default) their Docker containers.
 * Sandboxes whose owner is alive, on this host or another, are never touched.
 */
export async function gc(options: GcOptions = {}): Promise<GcReport> {
  const report: GcReport = { reclaimed: [], live: 0 };
  const dir = trustedLeaseDirectory(options.leaseDir ?? leaseDirectory(), false);
  if (dir) {
    for (const lease of readLeases(dir)) {
      if (ownerAlive(lease.record)) report.live++;
      else report.reclaimed.push(...(await reclaim(lease, options.dryRun ?? false)));
    }
    removeOrphanedTemporaries(dir, options.dryRun ?? false);
  }
  const wantContainers = options.containers ?? (await dockerAvailable({ docker: options.docker }));
  if (wantContainers) {
    await gcContainers({
      docker: options.docker,
      dryRun: options.dryRun,
      onRemoved: (id) => report.reclaimed.push({ kind: 'container', what: id.slice(0, 12), backend: 'docker' }),
    });
  }
  if (options.kubernetes) {
    const target = options.kubernetes === true ? {} : options.kubernetes;
    const backend = await importOptionalPackage<KubernetesGcModule>(KUBERNETES_PACKAGE, 'gc of Kubernetes pods');
    report.reclaimed.push(...(await backend.gcPods({ ...target, dryRun: options.dryRun })));
  }
  return report;
}

const SWEEP_INTERVAL_MS = 60_000;
let lastSweep = 0;

/**
 * The cheap part of `gc()` a terminal runs when it starts (at most once a minute per process): leases
 * of dead owners only, no Docker. Never throws.
 */
export async function sweepStaleLeases(leaseDir?: string): Promise<void> {
  const now = Date.now();
  if (now - lastSweep < SWEEP_INTERVAL_MS) return;
  lastSweep = now;
  await gc({ leaseDir, containers: false }).catch(() => undefined);
}

function ownerAlive(record: LeaseRecord): boolean {
  if (record.owner.host !== hostname()) return true; // cannot tell: never reclaim another host's sandboxes
  return processAlive(record.owner.pid, record.owner.start);
}

async function reclaim({ file, record }: StoredLease, dryRun: boolean): Promise<Reclaimed[]> {
  const found: Reclaimed[] = [];
  const note = (kind: ReclaimedKind, what: string): void => {
    found.push({ kind, what, backend: record.backend, owner: record.owner.pid });
  };
  const marker = record.marker;
  for (const pid of await leasedProcesses(record)) {
    if (dryRun || kill(pid)) note('process', String(pid));
  }
  // A second pass catches children forked while the first was killing (and setsid'd ones).
  if (marker && !dryRun) await killMarkedProcesses(marker.value, marker.variable);
  for (const cgroup of record.cgroups) {
    if (!isOwnCgroup(cgroup) || !existsSync(cgroup)) continue;
    if (!dryRun) await removeCgroup(cgroup);
    note('cgroup', cgroup);
  }
  for (const path of record.dirs) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats?.isDirectory() || !posix.isAbsolute(path) || !OWN_DIR.test(basename(path))) continue;
    if (!dryRun) rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    note('dir', path);
  }
  if (!dryRun) rmSync(file, { force: true });
  note('lease', basename(file));
  return found;
}

/**
 * The live processes a lease names: members of its process groups (whose leader, when alive, is
 * still the one the lease recorded) and every process carrying the sandbox's marker.
 */
async function leasedProcesses(record: LeaseRecord): Promise<number[]> {
  const marker = record.marker;
  const ours = (environ: Buffer): boolean => (marker ? carriesMarker(environ, marker.variable, marker.value) : false);
  const pids = new Set<number>();
  for (const group of record.groups) {
    const leader = procStat(group.pgid);
    const sameLeader = leader !== undefined && leader.pgid === group.pgid && (!group.start || leader.start === group.start);
    // Without its recorded leader a reused group id could be anyone's: only marked members count.
    for (const pid of await groupMembers(group.pgid, sameLeader ? () => true : ours)) pids.add(pid);
    if (sameLeader) for (const pid of [group.pgid, ...descendants(group.pgid)]) pids.add(pid);
  }
  if (marker) for (const pid of await markedProcesses(marker.value, marker.variable)) pids.add(pid);
  return [...pids];
}

/** `<lease>.json.<pid>.tmp` files of writers that died mid-write. */
function removeOrphanedTemporaries(dir: string, dryRun: boolean): void {
  for (const name of readdirSync(dir)) {
    const match = /\.json\.(\d+)\.tmp$/.exec(name);
    if (!match || processAlive(Number(match[1]), undefined) || dryRun) continue;
    rmSync(join(dir, name), { force: true });
  }
}
