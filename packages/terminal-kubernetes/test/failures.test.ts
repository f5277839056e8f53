/**
 * What clusters do to a sandbox, against the FAKE Kubernetes API server (test/fake-cluster): pods
 * that stay pending, images that cannot be pulled, API errors (retried, or explained), responses
 * lost after the create went through, exec connections that drop, pods deleted, evicted or
 * OOM-killed mid-episode (the env ends with fatal_error and reset() recovers).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RepoEnv, SandboxUnavailableError, UnrecoverableTerminalError } from '@debug-gym/core';
import bashTool from '@debug-gym/tool-bash';
import type { KubernetesTerminal } from '../src/index.js';
import { clusterTestsCanRun, useTestCluster } from './fake-cluster/test-cluster.js';

describe.runIf(await clusterTestsCanRun())('kubernetes backend failure paths (fake API server)', () => {
  const cluster = useTestCluster('failures');
  const podCreates = (): number => cluster.api.requests.filter((line) => line === `POST /api/v1/namespaces/${cluster.namespace}/pods`).length;

  describe('pods that do not start', () => {
    it('names the scheduler reason from the pod events when a pod stays pending, and deletes it', async () => {
      const terminal = cluster.terminal({ nodeSelector: { 'node.kubernetes.io/instance-type': 'gpu-large' }, startTimeoutMs: 500 });
      const error = await terminal.start().catch((caught: unknown) => caught);
      expect(SandboxUnavailableError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(/was still Pending after 1 s: FailedScheduling: 0\/1 nodes are available: 1 node\(s\) didn't match Pod's node affinity\/selector/);
      expect(terminal.started).toBe(false);
      expect(await cluster.podsLeft(cluster.api.podNames(cluster.namespace))).toEqual([]);
    });

    it('says which resource is short when the pod asks for more than a node has', async () => {
      const terminal = cluster.terminal({ cpus: 64, startTimeoutMs: 500 });
      await expect(terminal.start()).rejects.toThrow(/FailedScheduling: 0\/1 nodes are available: 1 Insufficient cpu/);
    });

    it('fails at once, without waiting for the timeout, when the image cannot be pulled', async () => {
      const terminal = cluster.terminal({ image: 'registry.invalid/debug-gym/none:1', startTimeoutMs: 60_000 });
      const started = Date.now();
      await expect(terminal.start()).rejects.toThrow(/cannot start its container: ErrImagePull: Failed to pull image "registry.invalid\/debug-gym\/none:1"/);
      expect(Date.now() - started).toBeLessThan(50_000);
    });

    it('explains a refused create (403) without retrying it', async () => {
      cluster.api.failNext({ method: 'POST', path: /\/pods$/, status: 403 });
      const before = podCreates();
      await expect(cluster.terminal().start()).rejects.toThrow(/HTTP 403: .*create, get, list, watch, patch and delete pods, create pods\/exec/);
      expect(podCreates() - before).toBe(1);
    });

    it('needs an image', async () => {
      const saved = [process.env.DEBUG_GYM_KUBERNETES_IMAGE, process.env.DEBUG_GYM_DOCKER_IMAGE];
      delete process.env.DEBUG_GYM_KUBERNETES_IMAGE;
      delete process.env.DEBUG_GYM_DOCKER_IMAGE;
      try {
        await expect(cluster.terminal({ image: undefined }).start()).rejects.toThrow(/needs an image your cluster can pull/);
      } finally {
        if (saved[0] !== undefined) process.env.DEBUG_GYM_KUBERNETES_IMAGE = saved[0];
        if (saved[1] !== undefined) process.env.DEBUG_GYM_DOCKER_IMAGE = saved[1];
      }
    });
  });

  describe('API errors', () => {
    it('retries a create that failed with 500 and an exec refused with 503', async () => {
      cluster.api.failNext({ method: 'POST', path: /\/pods$/, status: 500, times: 2 });
      cluster.api.failNext({ method: 'UPGRADE', path: /\/exec$/, status: 503 });
      const before = podCreates();
      const terminal = cluster.terminal();
      await terminal.start();
      expect(podCreates() - before).toBe(3);
      expect((await terminal.run('echo up')).output).toBe('up\n');
      await terminal.close();
    });

    it('adopts its own pod when the create went through but the answer was lost (500, then 409)', async () => {
      cluster.api.failNext({ method: 'POST', path: /\/pods$/, status: 500, afterApplying: true });
      const existing = new Set(cluster.api.podNames(cluster.namespace));
      const terminal = cluster.terminal();
      await terminal.start();
      const created = cluster.api.podNames(cluster.namespace).filter((name) => !existing.has(name));
      expect(created).toEqual([terminal.podName]);
      expect((await terminal.run('echo adopted')).output).toBe('adopted\n');
      await terminal.close();
    });
    it('falls back to reading the pod, without a busy loop, when watches are refused', async () => {
      const watches = (): number => cluster.api.requests.filter((line) => line === `GET /api/v1/namespaces/${cluster.namespace}/pods`).length;
      cluster.api.failNext({ method: 'GET', path: /\/pods$/, status: 403, times: 1000 });
      const before = watches();
      const terminal = cluster.terminal();
      await terminal.start();
      expect((await terminal.run('echo polled')).output).toBe('polled\n');
      // Each refused watch is followed by a pause, never by an immediate retry.
      expect(watches() - before).toBeLessThan(20);
      await terminal.close();
      cluster.api.clearFailures();
    });

    it('warns once when the lease cannot be renewed (gc would later delete the pod in use)', async () => {
      const warnings: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((text) => (warnings.push(String(text)), true));
      cluster.api.failNext({ method: 'PATCH', path: /\/pods\/[^/]+$/, status: 403, times: 10 });
      const terminal = cluster.terminal({ leaseSeconds: 0.6 });
      try {
        await terminal.start();
        await sleep(700);
      } finally {
        spy.mockRestore();
        await terminal.close();
        cluster.api.clearFailures();
      }
      expect(warnings.filter((text) => text.includes('could not renew the lease'))).toHaveLength(1);
      expect(warnings.join('')).toMatch(/HTTP 403: .*The account needs `patch` on pods/);
    });
  });

  describe('exec channel protocols', () => {
    it.each(['v5.channel.k8s.io', 'v4.channel.k8s.io'])('runs commands and pdb over %s', async (protocol) => {
      cluster.api.execProtocols = [protocol];
      const terminal = cluster.terminal();
      try {
        await terminal.start();
        expect(cluster.api.negotiated.at(-1)).toBe(protocol);
        expect((await terminal.run('cat; echo err >&2; echo out', { input: 'in\n' })).output).toBe('in\nerr\nout\n');
        await terminal.writeFile('six.py', 'x = 6\n');
        const session = await terminal.openSession(`${terminal.python} -m pdb six.py`, { prompt: '(Pdb) ', timeoutMs: 10_000 });
        expect((await session.read()).output).toContain('six.py(1)');
        expect((await session.send('p 6*7')).output).toBe('42\n');
        await session.close();
      } finally {
        cluster.api.execProtocols = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
        await terminal.close();
      }
    });
  });

  describe('a running pod', () => {
    let terminal: KubernetesTerminal;

    beforeAll(async () => {
      terminal = cluster.terminal();
      await terminal.start();
    });

    it('gets a new helper when the exec connection drops while idle; files and commands just work', async () => {
      await terminal.writeFile('kept.txt', 'still here');
      expect(cluster.api.dropExecs(cluster.namespace, terminal.podName as string)).toBe(1);
      await sleep(100);
      expect(Buffer.from(await terminal.readFile('kept.txt')).toString()).toBe('still here');
      expect((await terminal.run('echo after')).output).toBe('after\n');
    });

    it('reports a command cut off by a dropped connection, stops it, and stays usable', async () => {
      const running = terminal.run('sleep 47 && echo never', { timeoutMs: 20_000 });
      await sleep(500);
      cluster.api.dropExecs(cluster.namespace, terminal.podName as string);
      const result = await running;
      expect(result.exitCode).toBeNull();
      expect(result.output).toMatch(/connection to the sandbox pod dropped while the command ran/);
      const after = await terminal.run('ps -eo args');
      expect(after.exitCode).toBe(0);
      expect(after.output).not.toContain('sleep 47');
    });

    it('ends a pdb session whose connection dropped; a new session works', async () => {
      const session = await terminal.openSession(`${terminal.python} -m pdb -c 'p 6*7' kept.txt`, { prompt: '(Pdb) ', timeoutMs: 10_000 });
      await session.read();
      cluster.api.dropExecs(cluster.namespace, terminal.podName as string);
      const read = await session.read({ timeoutMs: 5000 }).catch((error: unknown) => error);
      expect(session.closed).toBe(true);
      expect(read instanceof Error || (read as { exited: boolean }).exited).toBe(true);
      const again = await terminal.openSession(`${terminal.python} -c 'print(6*7)'`, { prompt: '(Pdb) ', timeoutMs: 10_000 });
      expect((await again.read()).output).toBe('42\n');
      await again.close();
    });

    it("forks Python through the pod's fork server, which a helper replacing a dropped one starts again", async () => {
      expect(await terminal.startForkServer()).toMatchObject({ ready: true, groups: ['pytest', 'pdb'] });
      const run = () => terminal.run(`${terminal.python} -c 'print(6*7)'`, { python: { args: ['-c', 'print(6*7)'], uses: [] } });
      expect(await run()).toMatchObject({ output: '42\n', exitCode: 0, launch: { via: 'fork-server' } });
      const session = await terminal.openSession(`${terminal.python} -m pdb -c 'p 6*7' kept.txt`, { prompt: '(Pdb) ', timeoutMs: 10_000, python: { args: ['-m', 'pdb', '-c', 'p 6*7', 'kept.txt'], uses: ['pytest', 'pdb'] } });
      expect(session.launch).toMatchObject({ via: 'fork-server' });
      await session.close();
      cluster.api.dropExecs(cluster.namespace, terminal.podName as string);
      await sleep(100);
      const vias: Array<string | undefined> = [];
      for (let attempt = 0; attempt < 40 && vias.at(-1) !== 'fork-server'; attempt++) {
        const result = await run();
        expect(result.output).toBe('42\n');
        vias.push(result.launch?.via);
        if (result.launch?.via !== 'fork-server') await sleep(250);
      }
      expect(vias.at(-1)).toBe('fork-server');
    });

    it('keeps the Kubernetes service variables and the API token out of commands', async () => {
      const result = await terminal.run('env; ls /var/run/secrets/kubernetes.io 2>&1; echo done');
      expect(result.output).not.toMatch(/KUBERNETES_/);
      expect(result.output).toMatch(/No such file or directory\ndone\n$/);
    });

    it('has no network (the deny-all NetworkPolicy is in place)', async () => {
      const result = await terminal.run(`${terminal.python} -c "import socket; socket.create_connection(('192.0.2.1', 80), 2)"`);
      expect(result.exitCode).not.toBe(0);
      expect(result.output).toMatch(/Network is unreachable|timed out/);
    });

    it('runs as a non-root uid of its own with no capabilities and a read-only image', async () => {
      const result = await terminal.run('id -u; grep CapEff /proc/self/status; touch /usr/x 2>&1; echo "$HOME"');
      const [uid, caps, touch, home] = result.output.trim().split('\n');
      expect(Number(uid)).toBeGreaterThanOrEqual(1_000_000_000);
      expect(caps).toMatch(/CapEff:\s+0+$/);
      expect(touch).toMatch(/Read-only file system/);
      expect(home).toBe('/tmp/home');
    });

    it('caps the processes of the sandbox (RLIMIT_NPROC of its own uid)', async () => {
      const result = await terminal.run('ulimit -u');
      expect(result.output.trim()).toBe('1024');
    });
  });

  describe('pods that die mid-episode', () => {
    let repo: string;

    beforeAll(async () => {
      repo = await mkdtemp(join(tmpdir(), 'k8s-repo-'));
      await writeFile(join(repo, 'test_app.py'), 'def test_bug():\n    assert 1 + 1 == 3\n');
    });

    afterAll(async () => {
      await rm(repo, { recursive: true, force: true });
    });

    it('ends the episode with fatal_error when the pod is evicted, and reset() recovers', async () => {
      const terminal = cluster.terminal();
      const env = new RepoEnv({ path: repo, entrypoint: 'python3 -m pytest -q', terminal, tools: [bashTool] });
      try {
        await env.reset();
        const first = terminal.podName as string;
        await cluster.api.kill(cluster.namespace, first, 'Evicted');
        const info = await env.step({ name: 'bash', arguments: { command: 'echo hi' } });
        expect(info.terminated).toBe(true);
        expect(info.terminationReason).toBe('fatal_error');
        expect(info.stepObservation.observation).toMatch(/was evicted: The node was low on resource: memory/);
        await expect(terminal.run('true')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
        const fresh = await env.reset();
        expect(terminal.podName).not.toBe(first);
        expect(fresh.terminated).toBe(false);
        const after = await env.step({ name: 'bash', arguments: { command: 'echo back' } });
        expect(after.stepObservation.observation).toContain('back');
      } finally {
        await env.close();
      }
    });

    it.each([
      ['deleted', /pod failures\/\S+ (is gone \(it was deleted\)|is being deleted)/],
      ['OOMKilled', /stopped \(exit code 137, killed for running out of memory \(OOMKilled\)\)/],
    ] as const)('reports a pod %s mid-episode as unrecoverable; start() recovers', async (how, message) => {
      const terminal = cluster.terminal();
      await terminal.start();
      const first = terminal.podName as string;
      if (how === 'deleted') {
        await deleteThroughApi(first);
        // Deletion is graceful: the pod runs until the node has removed it.
        expect(await cluster.podsLeft([first])).toEqual([]);
      } else {
        await cluster.api.kill(cluster.namespace, first, how);
      }
      const error = await terminal.run('echo hi').catch((caught: unknown) => caught);
      expect(UnrecoverableTerminalError.isInstance(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      await expect(terminal.readFile('x')).rejects.toBeInstanceOf(UnrecoverableTerminalError);
      await terminal.start();
      expect((await terminal.run('echo back')).output).toBe('back\n');
      await terminal.close();
    });

    async function deleteThroughApi(pod: string): Promise<void> {
      const response = await fetch(`${cluster.api.serverUrl}/api/v1/namespaces/${cluster.namespace}/pods/${pod}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${cluster.api.token}` },
      });
      expect(response.status).toBe(200);
    }
  });

  it('stops a pod by itself once no helper has run for orphanSeconds (a driver killed with SIGKILL)', async () => {
    const terminal = cluster.terminal({ orphanSeconds: 2 });
    await terminal.start();
    const pod = terminal.podName as string;
    // What a dead driver leaves: the helper's connection gone, nobody to start another.
    cluster.api.dropExecs(cluster.namespace, pod);
    const deadline = Date.now() + 20_000;
    while (cluster.api.pod(cluster.namespace, pod)?.status?.phase === 'Running' && Date.now() < deadline) await sleep(200);
    expect(cluster.api.pod(cluster.namespace, pod)?.status?.phase).toBe('Succeeded');
    await terminal.close();
  });
});
