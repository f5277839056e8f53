/**
 * The limits every Docker sandbox gets by default (memory, CPU, processes, a read-only root file
 * system with sized tmpfs for every writable path, dropped capabilities, a non-root user) as
 * HostConfig fields, and whether the engine can put a quota on a container's writable layer.
 */
import { posix } from 'node:path';
import type Docker from 'dockerode';
import { parseMemory } from './docker-engine.js';
import type { DockerTerminalOptions } from './docker-terminal.js';

export interface SandboxUser {
  uid: number;
  gid: number;
}

/** Settings of `DockerTerminalOptions` that this module reads. */
export type LimitOptions = Pick<
  DockerTerminalOptions,
  | 'memory'
  | 'cpus'
  | 'pidsLimit'
  | 'tmpSize'
  | 'shmSize'
  | 'disk'
  | 'workdir'
  | 'workdirTmpfs'
  | 'runAs'
  | 'network'
  | 'init'
  | 'readOnlyRoot'
  | 'tmpfs'
>;

export const DEFAULT_LIMITS = {
  memory: '2g',
  cpus: 1,
  pidsLimit: 1024,
  tmpSize: '512m',
  shmSize: '64m',
  disk: '1g',
  runAs: { uid: 10001, gid: 10001 },
} as const;

/**
 * The writable paths a read-only root gets besides `/tmp` (`tmpSize`), `/dev/shm` (`shmSize`) and
 * the working copy (`disk`): `/var/tmp` (world-writable in every Debian-like image) and `/run`
 * (where the launch script puts the `python` wrappers, and `/run/lock`). The `tmpfs` option adds
 * paths or resizes these.
 */
export const DEFAULT_TMPFS: Readonly<Record<string, string>> = { '/var/tmp': '64m', '/run': '16m' };

/** Docker's default `ReadonlyPaths` (what the engine sets when none are given; giving any replaces them). */
export const ENGINE_READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** Mount options of a writable path that is not the working copy: world-writable (sticky) except `/run`. */
function scratchMount(path: string, bytes: number): string {
  const mode = path === '/run' ? '0755' : '1777';
  return `rw,exec,nosuid,nodev,mode=${mode},size=${bytes}`;
}

/** Is the container's root file system read-only (default), so only the sized tmpfs mounts are writable? */
export function readOnlyRoot(options: LimitOptions): boolean {
  return options.readOnlyRoot ?? true;
}

/**
 * What the root helper keeps: file ownership and access to serve and chown the working copy,
 * setuid/setgid to start commands as the sandbox user, kill to stop what they leave behind.
 * The commands themselves run with none.
 */
export const HELPER_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL', 'SETUID', 'SETGID'];

/** The user commands run as; undefined when they run as root (`runAs: 'root'`). */
export function sandboxUser(options: LimitOptions): SandboxUser | undefined {
  const runAs = options.runAs ?? DEFAULT_LIMITS.runAs;
  if (runAs === 'root') return undefined;
  for (const id of [runAs.uid, runAs.gid]) {
    if (!Number.isInteger(id) || id <= 0) throw new RangeError(`runAs needs positive integer ids (or 'root'), got ${JSON.stringify(runAs)}`);
  }
  return runAs;
}

/** Bytes of the working copy's quota, or undefined for none. */
export function diskBytes(options: LimitOptions): number | undefined {
  const disk = options.disk ?? DEFAULT_LIMITS.disk;
  return disk === false ? undefined : parseMemory(disk);
}

/**
 * Is the working copy a tmpfs? Always on a read-only root (of `disk` bytes, unsized with `disk:
 * false`; a custom `workdir` is filled with the image's content at start); on a writable root by
 * default only for the default `/workspace`, which `copyIn` fills, and never where the layer is sized.
 */
export function workdirOnTmpfs(options: LimitOptions, storageQuota: boolean): boolean {
  if (readOnlyRoot(options)) return true;
  if (storageQuota || diskBytes(options) === undefined) return false;
  return options.workdirTmpfs ?? options.workdir === undefined;
}

/** Does start() copy the image's content at the working copy's path into its tmpfs (a repository baked into the image)? */
export function workdirFromImage(options: LimitOptions): boolean {
  return readOnlyRoot(options) && options.workdir !== undefined && options.workdir !== '/workspace';
}

/** Throws a RangeError for a limit that cannot be used (before any container is made). */
export function checkLimits(options: LimitOptions): void {
  hostLimits(options, '/workspace', false);
}

/** HostConfig fields for the limits of `options` (workdir: the container's working copy). */
export function hostLimits(options: LimitOptions, workdir: string, storageQuota: boolean): Docker.HostConfig {
  const user = sandboxUser(options);
  const memory = options.memory ?? DEFAULT_LIMITS.memory;
  const cpus = options.cpus ?? DEFAULT_LIMITS.cpus;
  const readOnly = readOnlyRoot(options);
  if (readOnly && options.workdirTmpfs === false) {
    throw new RangeError('workdirTmpfs: false needs readOnlyRoot: false (on a read-only root the working copy must be a tmpfs to be writable)');
  }
  const tmpfs: Record<string, string> = { '/tmp': scratchMount('/tmp', parseMemory(options.tmpSize ?? DEFAULT_LIMITS.tmpSize)) };
  for (const [path, size] of Object.entries({ ...(readOnly ? DEFAULT_TMPFS : {}), ...options.tmpfs })) {
    const normal = posix.normalize(path).replace(/(?<!\/)\/+$/, '');
    if (!posix.isAbsolute(normal) || normal === '' || ['/tmp', '/dev/shm', workdir].includes(normal) || normal === '/') {
      throw new RangeError(`tmpfs paths must be absolute and not /, /tmp, /dev/shm or the working copy (tmpSize, shmSize and disk size those), got '${path}'`);
    }
    tmpfs[normal] = scratchMount(normal, parseMemory(size));
  }
  const config: Docker.HostConfig = {
    PidsLimit: options.pidsLimit ?? DEFAULT_LIMITS.pidsLimit,
    SecurityOpt: ['no-new-privileges'],
    CapDrop: ['ALL'],
    CapAdd: HELPER_CAPABILITIES,
    ShmSize: parseMemory(options.shmSize ?? DEFAULT_LIMITS.shmSize),
    Tmpfs: tmpfs,
  };
  if (readOnly) {
    config.ReadonlyRootfs = true;
    // The engine's defaults, and the cgroup v1 tmpfs (unsized, root's) that engines mount read-write.
    config.ReadonlyPaths = [...ENGINE_READONLY_PATHS, '/sys/fs/cgroup'];
  }
  if (memory !== false) {
    config.Memory = parseMemory(memory);
    config.MemorySwap = config.Memory;
  }
  if (cpus !== false) {
    if (!(cpus > 0)) throw new RangeError(`cpus must be a positive number of cores (or false), got ${cpus}`);
    config.NanoCpus = Math.round(cpus * 1e9);
  }
  const disk = diskBytes(options);
  if (disk !== undefined && storageQuota && !readOnly) config.StorageOpt = { size: String(disk) };
  if (workdirOnTmpfs(options, storageQuota)) {
    const owner = user ? `,uid=${user.uid},gid=${user.gid}` : '';
    const size = disk === undefined ? '' : `,size=${disk}`;
    tmpfs[workdir] = `rw,exec,nosuid,nodev,mode=0755${size}${owner}`;
  }
  return config;
}

const quotaSupport = new WeakMap<Docker, Promise<boolean>>();

/**
 * Can the engine size a container's writable layer (`StorageOpt: {size}`)? btrfs, zfs and
 * devicemapper can; overlay2 only on xfs mounted with `pquota`, which the engine does not report,
 * so overlay2 on xfs is tried and `quotaRefused` turns it off for good. Asked once per engine.
 */
export function storageQuotaSupported(docker: Docker): Promise<boolean> {
  let cached = quotaSupport.get(docker);
  if (!cached) {
    cached = docker.info().then(
      (info: { Driver?: string; DriverStatus?: Array<[string, string]> }) => {
        const backing = info.DriverStatus?.find(([key]) => key === 'Backing Filesystem')?.[1];
        return ['btrfs', 'zfs', 'devicemapper'].includes(info.Driver ?? '') || (info.Driver === 'overlay2' && backing === 'xfs');
      },
      () => false,
    );
    quotaSupport.set(docker, cached);
  }
  return cached;
}

/** The engine refused a StorageOpt size: remember it for this engine. */
export function quotaRefused(docker: Docker): void {
  quotaSupport.set(docker, Promise.resolve(false));
}

/** Is this engine error the refusal of a storage size option? */
export function isQuotaRefusal(error: unknown): boolean {
  return /storage-opt|storage opt|pquota|size option/i.test(String((error as Error)?.message ?? ''));
}
