/**
 * The pod the backend asks for, checked against the Kubernetes JSON schemas (kubernetes-models)
 * and the restricted Pod Security Standard: what a real API server would be sent.
 */
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { Pod } from 'kubernetes-models/v1/Pod';
import { describe, expect, it } from 'vitest';
import { KubernetesTerminal, noNetworkPolicy, planPod, podManifest } from '../src/index.js';
import { reclaimReason } from '../src/gc-pods.js';
import { WORKDIR_COPY_MOUNT } from '../src/pod-spec.js';
import { ANNOTATION_LEASE, ANNOTATION_OWNER, podOwner } from '../src/ownership.js';

const IMAGE = 'registry.example.com/debug-gym/python:3.12';

describe('the sandbox pod', () => {
  it('is a valid Pod that meets the restricted Pod Security Standard', () => {
    const pod = podManifest(planPod({}, 'team-a', IMAGE));
    expect(() => new Pod(pod as never).validate()).not.toThrow();
    const spec = pod.spec!;
    const container = spec.containers[0]!;
    expect(spec).toMatchObject({ restartPolicy: 'Never', automountServiceAccountToken: false, enableServiceLinks: false });
    expect(spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(spec.securityContext!.runAsUser).toBeGreaterThanOrEqual(1_000_000_000);
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.image).toBe(IMAGE);
    expect(pod.metadata?.namespace).toBe('team-a');
    expect(pod.metadata?.name).toMatch(/^debug-gym-[0-9a-f]{10}-[0-9a-f]{8}$/);
  });

  it('holds the Docker backend limits: 2 GiB, 1 CPU (requests = limits), memory-backed /workspace, /tmp, /dev/shm', () => {
    const pod = podManifest(planPod({}, 'ns', IMAGE));
    const container = pod.spec!.containers[0]!;
    expect(container.resources).toEqual({ limits: { memory: String(2 * 1024 ** 3), cpu: '1' }, requests: { memory: String(2 * 1024 ** 3), cpu: '1' } });
    expect(pod.spec!.volumes).toEqual([
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: String(512 * 1024 ** 2) } },
      { name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: String(64 * 1024 ** 2) } },
      { name: 'workspace', emptyDir: { medium: 'Memory', sizeLimit: String(1024 ** 3) } },
      { name: 'scratch-0', emptyDir: { medium: 'Memory', sizeLimit: String(64 * 1024 ** 2) } },
    ]);
    expect(container.volumeMounts?.map((mount) => mount.mountPath)).toEqual(['/tmp', '/dev/shm', '/workspace', '/var/tmp']);
    expect(container.securityContext?.readOnlyRootFilesystem).toBe(true);
    expect(pod.spec!.initContainers).toBeUndefined();
    expect(container.env).toContainEqual({ name: 'DEBUG_GYM_HELPER_NPROC', value: '1024' });
  });

  it('carries the options: scheduling, pull secrets, requests, labels, a fixed user, network', () => {
    const pod = podManifest(
      planPod(
        {
          nodeSelector: { pool: 'sandboxes' },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'sandboxes', effect: 'NoSchedule' }],
          imagePullSecrets: ['regcred'],
          priorityClassName: 'batch-low',
          runtimeClassName: 'gvisor',
          memory: '4g',
          cpus: 1.5,
          requests: { memory: '1g', cpus: 0.25 },
          labels: { team: 'rl' },
          runAsUser: 4242,
          network: true,
          workdir: '/testbed',
          readOnlyRootFilesystem: false,
          orphanSeconds: false,
        },
        'ns',
        IMAGE,
      ),
    );
    expect(() => new Pod(pod as never).validate()).not.toThrow();
    const spec = pod.spec!;
    const container = spec.containers[0]!;
    expect(spec.nodeSelector).toEqual({ pool: 'sandboxes' });
    expect(spec.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'sandboxes', effect: 'NoSchedule' }]);
    expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(spec).toMatchObject({ priorityClassName: 'batch-low', runtimeClassName: 'gvisor' });
    expect(container.resources).toEqual({ limits: { memory: String(4 * 1024 ** 3), cpu: '1500m' }, requests: { memory: String(1024 ** 3), cpu: '250m' } });
    expect(spec.securityContext).toMatchObject({ runAsUser: 4242, runAsGroup: 4242 });
    expect(pod.metadata?.labels).toMatchObject({ team: 'rl', 'app.kubernetes.io/managed-by': 'debug-gym' });
    expect(pod.metadata?.labels?.['debug-gym.dev/network']).toBeUndefined();
    // A repository baked into the image is not hidden by a volume; a shared uid gets no per-node process cap.
    expect(container.volumeMounts?.map((mount) => mount.mountPath)).toEqual(['/tmp', '/dev/shm', '/var/tmp']);
    expect(spec.initContainers).toBeUndefined();
    expect(container.env?.map((variable) => variable.name)).not.toContain('DEBUG_GYM_HELPER_NPROC');
    expect(container.command?.at(-1)).toBe('0');
  });

  it('copies a repository baked into the image into a sized volume on a read-only root, with an init container of the same image', () => {
    const pod = podManifest(planPod({ workdir: '/testbed', disk: '3g', tmpfs: { '/var/tmp': '8m', '/home/app': '32m' } }, 'ns', IMAGE));
    expect(() => new Pod(pod as never).validate()).not.toThrow();
    const spec = pod.spec!;
    const container = spec.containers[0]!;
    expect(container.volumeMounts).toEqual([
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'shm', mountPath: '/dev/shm' },
      { name: 'workspace', mountPath: '/testbed' },
      { name: 'scratch-0', mountPath: '/var/tmp' },
      { name: 'scratch-1', mountPath: '/home/app' },
    ]);
    expect(spec.volumes?.find((volume) => volume.name === 'workspace')?.emptyDir).toEqual({ medium: 'Memory', sizeLimit: String(3 * 1024 ** 3) });
    expect(spec.volumes?.find((volume) => volume.name === 'scratch-0')?.emptyDir?.sizeLimit).toBe(String(8 * 1024 ** 2));
    const [copy] = spec.initContainers ?? [];
    expect(copy).toMatchObject({ name: 'copy-workdir', image: IMAGE, securityContext: container.securityContext, resources: container.resources });
    expect(copy?.volumeMounts).toEqual([{ name: 'workspace', mountPath: WORKDIR_COPY_MOUNT }]);
    expect(copy?.command).toEqual(['/bin/sh', '-c', 'if [ -d "$0" ]; then cp -a "$0"/. "$1"/; fi', '/testbed', WORKDIR_COPY_MOUNT]);
    expect(() => planPod({ tmpfs: { relative: '1m' } }, 'ns', IMAGE)).toThrow(RangeError);
    expect(() => planPod({ tmpfs: { '/tmp': '1m' } }, 'ns', IMAGE)).toThrow(RangeError);
  });

  it('names its owner and a lease that gc reads', () => {
    const pod = podManifest(planPod({ leaseSeconds: 60 }, 'ns', IMAGE));
    const owner = podOwner(pod.metadata?.annotations);
    expect(owner).toMatchObject({ pid: process.pid });
    const lease = Date.parse(pod.metadata!.annotations![ANNOTATION_LEASE]!);
    expect(lease - Date.now()).toBeGreaterThan(55_000);
    // Our own pods are never collected; another owner's are once the lease ran out.
    expect(reclaimReason(pod, lease + 1000)).toBeUndefined();
    const foreign = { ...pod, metadata: { ...pod.metadata, annotations: { ...pod.metadata!.annotations, [ANNOTATION_OWNER]: JSON.stringify({ host: 'elsewhere', pid: 1, run: 'other' }) } } };
    expect(reclaimReason(foreign, lease - 1000)).toBeUndefined();
    expect(reclaimReason(foreign, lease + 1000)).toBe('lease expired');
  });

  it('refuses options that cannot work before any pod is made', () => {
    expect(() => new KubernetesTerminal({ runAsUser: 0 })).toThrow(/never run as root/);
    expect(() => new KubernetesTerminal({ memory: 'lots' })).toThrow(/Invalid memory limit/);
    expect(() => new KubernetesTerminal({ cpus: -1 })).toThrow(/cpus must be a positive number/);
    expect(() => new KubernetesTerminal({ workdir: 'relative' })).toThrow(/absolute path/);
    expect(() => new KubernetesTerminal({ leaseSeconds: 0 })).toThrow(/leaseSeconds must be positive/);
    expect(() => new KubernetesTerminal({ orphanSeconds: -1 })).toThrow(/orphanSeconds must be positive/);
    expect(() => new KubernetesTerminal({ pidsLimit: 1.5 })).toThrow(/pidsLimit must be a positive integer/);
  });

  it('keeps sandbox pods off the network with a valid deny-all NetworkPolicy', () => {
    const policy = noNetworkPolicy('team-a');
    expect(() => new NetworkPolicy(policy as never).validate()).not.toThrow();
    expect(policy.spec).toEqual({ podSelector: { matchLabels: { 'debug-gym.dev/network': 'none' } }, policyTypes: ['Ingress', 'Egress'], ingress: [], egress: [] });
  });
});
