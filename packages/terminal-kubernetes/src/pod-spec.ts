/**
 * The pod of one sandbox: the Docker backend's limits in Kubernetes terms, the restricted Pod
 * Security Standard (non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp),
 * no service account token, a read-only root and memory-backed volumes of fixed size for everything
 * writable (a repository baked into the image is copied into its volume by an init container).
 */
import { randomInt } from 'node:crypto';
import { posix } from 'node:path';
import type { V1Pod, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { parseMemory } from '@debug-gym/terminal';
import { CONTAINER_NAME, DEFAULT_WORKDIR, DEFAULTS, type KubernetesTerminalOptions } from './kubernetes-options.js';
import { ownerAnnotations, ownerLabels, podName } from './ownership.js';
import { helperEnv, podCommand } from './pod-launch.js';

export interface PodPlan {
  name: string;
  namespace: string;
  image: string;
  workdir: string;
  /** The uid (and gid) of every process in the pod. */
  uid: number;
  options: KubernetesTerminalOptions;
}

/** Unnamed ids far above real users, so each pod gets its own process budget (RLIMIT_NPROC). */
export function randomPodUid(): number {
  return randomInt(1_000_000_000, 2_000_000_000);
}

/** Throws a RangeError for an option that cannot be used (before any pod is made). */
export function checkPodOptions(options: KubernetesTerminalOptions): void {
  const workdir = options.workdir ?? DEFAULT_WORKDIR;
  if (!posix.isAbsolute(workdir) || posix.normalize(workdir) === '/') throw new RangeError(`workdir must be an absolute path below /, got '${workdir}'`);
  if (options.runAsUser !== undefined && !(Number.isInteger(options.runAsUser) && options.runAsUser > 0)) {
    throw new RangeError(`runAsUser must be a positive integer (pods never run as root), got ${String(options.runAsUser)}`);
  }
  if (options.cpus !== undefined && options.cpus !== false && !(options.cpus > 0)) throw new RangeError(`cpus must be a positive number of cores (or false), got ${options.cpus}`);
  if (options.pidsLimit !== undefined && !(Number.isInteger(options.pidsLimit) && options.pidsLimit > 0)) throw new RangeError(`pidsLimit must be a positive integer, got ${options.pidsLimit}`);
  if (options.leaseSeconds !== undefined && !(options.leaseSeconds > 0)) throw new RangeError(`leaseSeconds must be positive, got ${options.leaseSeconds}`);
  if (options.orphanSeconds !== undefined && options.orphanSeconds !== false && !(options.orphanSeconds > 0)) {
    throw new RangeError(`orphanSeconds must be positive (or false), got ${options.orphanSeconds}`);
  }
  for (const size of [options.memory, options.tmpSize, options.shmSize, options.disk, options.requests?.memory, ...Object.values(options.tmpfs ?? {})]) {
    if (size !== undefined && size !== false) parseMemory(size);
  }
  scratchPaths(options, workdir);
}

/** A Kubernetes quantity for a CPU count (`1`, `1500m`). */
function cpuQuantity(cores: number): string {
  return Number.isInteger(cores) ? String(cores) : `${Math.round(cores * 1000)}m`;
}

function memoryQuantity(size: number | string): string {
  return String(parseMemory(size));
}

function resources(options: KubernetesTerminalOptions): NonNullable<V1Pod['spec']>['containers'][number]['resources'] {
  const memory = options.memory ?? DEFAULTS.memory;
  const cpus = options.cpus ?? DEFAULTS.cpus;
  const limits: Record<string, string> = {};
  if (memory !== false) limits.memory = memoryQuantity(memory);
  if (cpus !== false) limits.cpu = cpuQuantity(cpus);
  const requests = { ...limits };
  if (options.requests?.memory !== undefined) requests.memory = memoryQuantity(options.requests.memory);
  if (options.requests?.cpus !== undefined) requests.cpu = cpuQuantity(options.requests.cpus);
  return { limits, requests };
}

function memoryVolume(name: string, size: number | string): V1Volume {
  return { name, emptyDir: { medium: 'Memory', sizeLimit: memoryQuantity(size) } };
}

/** Where the init container sees the working copy's volume while it copies the image's tree into it. */
export const WORKDIR_COPY_MOUNT = '/debug-gym-workdir';

/** Is the working copy a repository baked into the image (a custom workdir), copied into its volume by an init container? */
function workdirFromImage(options: KubernetesTerminalOptions): boolean {
  return options.workdir !== undefined && options.workdir !== DEFAULT_WORKDIR && options.readOnlyRootFilesystem !== false;
}

/** The writable paths besides /tmp, /dev/shm and the working copy: `/var/tmp` and the `tmpfs` option. */
function scratchPaths(options: KubernetesTerminalOptions, workdir: string): Array<[string, number | string]> {
  return Object.entries({ ...DEFAULTS.tmpfs, ...options.tmpfs }).map(([path, size]) => {
    const normal = posix.normalize(path).replace(/(?<!\/)\/+$/, '');
    if (!posix.isAbsolute(normal) || normal === '' || ['/tmp', '/dev/shm', workdir].includes(normal)) {
      throw new RangeError(`tmpfs paths must be absolute and not /, /tmp, /dev/shm or the working copy (tmpSize, shmSize and disk size those), got '${path}'`);
    }
    return [normal, size];
  });
}

function volumes(options: KubernetesTerminalOptions, workdir: string): { volumes: V1Volume[]; mounts: V1VolumeMount[] } {
  const list: V1Volume[] = [memoryVolume('tmp', options.tmpSize ?? DEFAULTS.tmpSize), memoryVolume('shm', options.shmSize ?? DEFAULTS.shmSize)];
  const mounts: V1VolumeMount[] = [{ name: 'tmp', mountPath: '/tmp' }, { name: 'shm', mountPath: '/dev/shm' }];
  // A custom workdir (a repository baked into the image) too, filled by the init container; only on
  // a writable root does it stay in the image's layer.
  if (options.workdir === undefined || options.workdir === DEFAULT_WORKDIR || workdirFromImage(options)) {
    list.push(memoryVolume('workspace', options.disk ?? DEFAULTS.disk));
    mounts.push({ name: 'workspace', mountPath: workdir });
  }
  scratchPaths(options, workdir).forEach(([path, size], index) => {
    list.push(memoryVolume(`scratch-${index}`, size));
    mounts.push({ name: `scratch-${index}`, mountPath: path });
  });
  return { volumes: list, mounts };
}

/** The init container that copies the image's tree at a custom workdir into the working copy's volume (nothing when the image has none there). */
function copyWorkdirContainer(plan: PodPlan, securityContext: object, resourceLimits: ReturnType<typeof resources>): NonNullable<NonNullable<V1Pod['spec']>['initContainers']>[number] {
  return {
    name: 'copy-workdir',
    image: plan.image,
    imagePullPolicy: plan.options.imagePullPolicy ?? 'IfNotPresent',
    command: ['/bin/sh', '-c', 'if [ -d "$0" ]; then cp -a "$0"/. "$1"/; fi', plan.workdir, WORKDIR_COPY_MOUNT],
    resources: resourceLimits,
    securityContext,
    volumeMounts: [{ name: 'workspace', mountPath: WORKDIR_COPY_MOUNT }],
  };
}

/** Everything `createPod` sends: name, namespace, image and the spec, fixed before the first attempt. */
export function planPod(options: KubernetesTerminalOptions, namespace: string, image: string): PodPlan {
  checkPodOptions(options);
  return { name: podName(), namespace, image, workdir: options.workdir ?? DEFAULT_WORKDIR, uid: options.runAsUser ?? randomPodUid(), options };
}

export function podManifest(plan: PodPlan): V1Pod {
  const { options, uid } = plan;
  const network = options.network === true;
  const { volumes: podVolumes, mounts } = volumes(options, plan.workdir);
  // RLIMIT_NPROC counts every process of the uid on the node: only a budget when the uid is the pod's own.
  const pidsLimit = options.runAsUser === undefined ? (options.pidsLimit ?? DEFAULTS.pidsLimit) : undefined;
  const env = helperEnv(uid, pidsLimit);
  const securityContext = {
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: options.readOnlyRootFilesystem ?? true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: plan.name,
      namespace: plan.namespace,
      labels: { ...options.labels, ...ownerLabels(network) },
      annotations: { ...options.annotations, ...ownerAnnotations(options.leaseSeconds ?? DEFAULTS.leaseSeconds) },
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: 1,
      ...(options.nodeSelector ? { nodeSelector: { ...options.nodeSelector } } : {}),
      ...(options.tolerations ? { tolerations: options.tolerations.map((toleration) => ({ ...toleration })) } : {}),
      ...(options.imagePullSecrets ? { imagePullSecrets: options.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(options.priorityClassName ? { priorityClassName: options.priorityClassName } : {}),
      ...(options.runtimeClassName ? { runtimeClassName: options.runtimeClassName } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: uid,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      ...(workdirFromImage(options) ? { initContainers: [copyWorkdirContainer(plan, securityContext, resources(options))] } : {}),
      containers: [
        {
          name: CONTAINER_NAME,
          image: plan.image,
          imagePullPolicy: options.imagePullPolicy ?? 'IfNotPresent',
          command: podCommand(options.orphanSeconds ?? DEFAULTS.orphanSeconds),
          workingDir: plan.workdir,
          env,
          resources: resources(options),
          securityContext,
          volumeMounts: mounts,
        },
      ],
      volumes: podVolumes,
    },
  };
}
