import type { KubeConfig, V1Toleration } from '@kubernetes/client-node';
import type { TerminalOptions } from '@debug-gym/core';

/** Options of `KubernetesTerminal`. Limits default to the Docker backend's. */
export interface KubernetesTerminalOptions extends TerminalOptions {
  /**
   * Interpreter inside the pod (default: `DEBUG_GYM_KUBERNETES_PYTHON`, else `python3`). The host's
   * `DEBUG_GYM_PYTHON` is not used: a host path rarely exists in an image.
   */
  python?: string;
  /** Allow a fork server in the pod (`startForkServer`; default true). False: every Python command starts cold. */
  forkServer?: boolean;
  /**
   * Image of the sandbox pods: one your cluster can pull, with `/bin/sh` and Python >= 3.8 (and
   * pytest for scoring), e.g. the Docker backend's recipe (`defaultImageRecipe()`) pushed to your
   * registry. Default: `DEBUG_GYM_KUBERNETES_IMAGE`, else `DEBUG_GYM_DOCKER_IMAGE`.
   */
  image?: string;
  /** `IfNotPresent` (default), `Always` or `Never`. */
  imagePullPolicy?: 'IfNotPresent' | 'Always' | 'Never';
  /** Names of Secrets in the namespace to pull the image with. */
  imagePullSecrets?: string[];
  /** Namespace of the pods (default: `DEBUG_GYM_KUBERNETES_NAMESPACE`, else the kubeconfig context's, in a pod its own, else `default`). */
  namespace?: string;
  /** kubeconfig context to use (default: the current one). */
  context?: string;
  /**
   * A kubeconfig file, or a loaded KubeConfig. Default: `KUBECONFIG`, else `~/.kube/config`, else
   * the in-cluster service account when running in a pod.
   */
  kubeconfig?: string | KubeConfig;
  /** Node labels the pod must run on (`spec.nodeSelector`). */
  nodeSelector?: Record<string, string>;
  /** Taints the pod tolerates (`spec.tolerations`). */
  tolerations?: V1Toleration[];
  /** `spec.priorityClassName` of the pods. */
  priorityClassName?: string;
  /** `spec.runtimeClassName` (e.g. `gvisor`, `kata`) for a stronger boundary than runc. */
  runtimeClassName?: string;
  /** Extra pod labels (the ownership labels are always set). */
  labels?: Record<string, string>;
  /** Extra pod annotations. */
  annotations?: Record<string, string>;
  /** Memory limit (and request): bytes or a size like `'2g'`, `'512m'` (default `'2g'`; `false`: none). The memory-backed volumes count against it. */
  memory?: number | string | false;
  /** CPU limit (and request) in cores (default 1; `false`: none). */
  cpus?: number | false;
  /**
   * Requests, when they should be lower than the limits (default: equal to them, so the pod is in
   * the Guaranteed QoS class: scheduled on real capacity and evicted last).
   */
  requests?: { memory?: number | string; cpus?: number };
  /**
   * Processes and threads of the sandbox (default 1024): RLIMIT_NPROC of the pod's own uid, which
   * is unique to the pod unless `runAsUser` is set. Kubernetes has no per-pod field for it; the
   * kubelet's `podPidsLimit` caps every pod of a node on top.
   */
  pidsLimit?: number;
  /** Size of the memory-backed `/tmp` (default `'512m'`). */
  tmpSize?: number | string;
  /** Size of the memory-backed `/dev/shm` (default `'64m'`). */
  shmSize?: number | string;
  /**
   * Size of the memory-backed working copy (default `'1g'`). A custom `workdir` (a repository baked
   * into the image) is copied into it by an init container of the same image before the pod starts.
   */
  disk?: number | string;
  /**
   * More memory-backed writable paths (path → bytes or `'256m'`), or another size for the default
   * `/var/tmp` (`'64m'`); they hide what the image has there and count against `memory`.
   */
  tmpfs?: Record<string, number | string>;
  /** Working copy inside the pod (default `/workspace`, a memory-backed emptyDir). */
  workdir?: string;
  /**
   * The uid (and gid) every process in the pod runs as (default: a random one per pod, so that
   * RLIMIT_NPROC is the pod's own budget). Never root.
   */
  runAsUser?: number;
  /** Mount the image read-only (default true; only the working copy, `/tmp`, `/dev/shm`, `/var/tmp` and `tmpfs` are writable). */
  readOnlyRootFilesystem?: boolean;
  /**
   * Network: off by default. Off means the pod carries the label `debug-gym.dev/network: none`,
   * which the `debug-gym-sandbox-no-network` NetworkPolicy (deny all ingress and egress) selects;
   * with `manageNetworkPolicy` the terminal creates that policy when it is missing. A network plugin
   * that enforces NetworkPolicies is needed for it to hold. `true`: the cluster's default.
   */
  network?: boolean;
  /** Create the deny-all NetworkPolicy in the namespace when it is missing (default true; false: an admin installs it). */
  manageNetworkPolicy?: boolean;
  /** Shell commands run (in `workdir`, as the pod's user) once the pod is up; a failing one fails `start()`. */
  setupCommands?: string[];
  /** How long `start()` waits for the pod to run (default 300 000 ms: capacity can take a cluster autoscaler minutes). */
  startTimeoutMs?: number;
  /** Lease length: `debug-gym gc --kubernetes` deletes pods whose lease ran out; renewed while the terminal runs (default 600 s). */
  leaseSeconds?: number;
  /**
   * A pod whose helper has been gone this long stops by itself (default 300 s; `false`: never),
   * so a driver killed with SIGKILL leaves no running pod behind.
   */
  orphanSeconds?: number | false;
  /** Kubernetes API calls are retried this many times on 429, 5xx and connection errors (default 5), with exponential backoff. */
  apiRetries?: number;
}

export const DEFAULT_WORKDIR = '/workspace';
export const CONTAINER_NAME = 'sandbox';

export const DEFAULTS = {
  memory: '2g',
  cpus: 1,
  pidsLimit: 1024,
  tmpSize: '512m',
  shmSize: '64m',
  disk: '1g',
  tmpfs: { '/var/tmp': '64m' } as Readonly<Record<string, string>>,
  startTimeoutMs: 300_000,
  leaseSeconds: 600,
  orphanSeconds: 300,
  apiRetries: 5,
} as const;

/** The image of the pods, or undefined when none is configured. */
export function configuredImage(options: KubernetesTerminalOptions, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return options.image ?? (env.DEBUG_GYM_KUBERNETES_IMAGE || env.DEBUG_GYM_DOCKER_IMAGE || undefined);
}
