/**
 * Kubernetes backend: one pod per `start()`, one long-lived helper inside it started over the exec
 * API, serving commands, file operations and session PTYs with the same protocol as the Docker and
 * bubblewrap backends (so every tool behaves the same). The Terminal API lives here; the running
 * pod is a KubernetesSandbox.
 */
import type { ForkServerOptions, ForkServerStatus, RunOptions, RunResult, SessionOptions, Terminal, TerminalSession } from '@debug-gym/core';
import { SandboxUnavailableError, TerminalNotStartedError } from '@debug-gym/core';
import {
  DEFAULT_FORK_GROUPS,
  forkServerStatus,
  forkStartParams,
  HelperBackedFiles,
  HelperLostError,
  type HelperResponse,
  SANDBOX_FIXED_ENV,
  archiveBytes,
  helperRunResult,
  openHelperSession,
  packDirectory,
  pythonParam,
  requireHostDirectory,
  runFailure,
} from '@debug-gym/terminal/helper';
import { type Cluster, connectCluster } from './kube-client.js';
import { DEFAULT_WORKDIR, DEFAULTS, type KubernetesTerminalOptions, configuredImage } from './kubernetes-options.js';
import { ExecConnectionLostError, KubernetesSandbox } from './kubernetes-sandbox.js';
import { ensureNoNetworkPolicy } from './network-policy.js';
import { checkPodOptions, planPod } from './pod-spec.js';
import type { RetryOptions } from './retry.js';

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_OUTPUT = 1024 * 1024;
/** Archives up to this size go to the helper in one request, bigger ones stream in pieces of it. */
const COPY_CHUNK = 8 * 1024 * 1024;

export class KubernetesTerminal extends HelperBackedFiles implements Terminal {
  readonly kind = 'kubernetes';
  readonly python: string;
  protected readonly workdirPath: string;
  private readonly defaultTimeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly retry: RetryOptions;
  private cluster: Cluster | undefined;
  private sandbox: KubernetesSandbox | undefined;

  constructor(private readonly options: KubernetesTerminalOptions = {}) {
    super();
    this.python = options.python ?? process.env.DEBUG_GYM_KUBERNETES_PYTHON ?? 'python3';
    this.workdirPath = options.workdir ?? DEFAULT_WORKDIR;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    this.retry = { retries: options.apiRetries ?? DEFAULTS.apiRetries };
    checkPodOptions(options); // fail fast on a bad value
  }

  /** Absolute path of the working copy inside the pod; TerminalNotStartedError before start(). */
  get workdir(): string {
    if (!this.sandbox) throw new TerminalNotStartedError(this.kind);
    return this.workdirPath;
  }

  get started(): boolean {
    return this.sandbox !== undefined;
  }

  /** Name of the current pod (undefined when not started). */
  get podName(): string | undefined {
    return this.sandbox?.podName;
  }

  /** Namespace of the pods (known once the cluster was reached, at the first start()). */
  get namespace(): string | undefined {
    return this.cluster?.namespace;
  }

  async start(): Promise<void> {
    // The old pod is let go at once; its deletion overlaps the new start-up.
    const previous = this.close().catch(() => undefined);
    try {
      const image = configuredImage(this.options);
      if (!image) {
        throw new SandboxUnavailableError(
          'The kubernetes terminal needs an image your cluster can pull, with /bin/sh, Python >= 3.8 and pytest: set the image ' +
            'option or DEBUG_GYM_KUBERNETES_IMAGE (e.g. build defaultImageRecipe() from @debug-gym/terminal and push it to your registry).',
        );
      }
      this.cluster ??= connectCluster(this.options);
      const cluster = this.cluster;
      if (this.options.network !== true && this.options.manageNetworkPolicy !== false) await ensureNoNetworkPolicy(cluster, this.retry);
      this.sandbox = await KubernetesSandbox.start({
        cluster,
        plan: planPod(this.options, cluster.namespace, image),
        python: this.python,
        startTimeoutMs: this.options.startTimeoutMs ?? DEFAULTS.startTimeoutMs,
        leaseSeconds: this.options.leaseSeconds ?? DEFAULTS.leaseSeconds,
        retry: this.retry,
      });
      for (const command of this.options.setupCommands ?? []) await this.runSetupCommand(command);
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      await previous;
    }
  }

  async run(command: string, options: RunOptions = {}): Promise<RunResult> {
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const params: Record<string, unknown> = {
      cmd: command,
      timeout: timeoutMs > 0 ? timeoutMs / 1000 : null,
      cap: this.maxOutputBytes,
      env: { ...SANDBOX_FIXED_ENV, TERM: 'dumb', ...this.options.env, ...options.env },
      cwd: this.resolve(options.cwd ?? this.workdirPath),
    };
    if (options.input !== undefined) params.input = Buffer.from(options.input, 'utf8').toString('base64');
    if (options.python && this.options.forkServer !== false) params.python = pythonParam(options.python);
    let response: HelperResponse;
    try {
      response = await this.requireSandbox().call('run', params, { retry: false });
    } catch (error) {
      if (error instanceof ExecConnectionLostError) {
        return {
          exitCode: null,
          output: 'debug-gym: the connection to the sandbox pod dropped while the command ran; it was stopped and its output was lost. The sandbox is still running.',
          timedOut: false,
          droppedBytes: 0,
          durationMs: Date.now() - started,
        };
      }
      return runFailure(error, started, options.cwd ?? this.workdirPath, this.workdirPath);
    }
    return helperRunResult(response, started);
  }

  async openSession(command: string, options: SessionOptions): Promise<TerminalSession> {
    const sandbox = this.requireSandbox();
    const cwd = await this.checkedDirectory(options.cwd ?? this.workdirPath);
    const helper = await sandbox.liveHelper();
    try {
      return await openHelperSession(helper, {
        command,
        cwd,
        env: { ...SANDBOX_FIXED_ENV, TERM: 'xterm', ...this.options.env, ...options.env },
        prompt: options.prompt,
        timeoutMs: options.timeoutMs ?? this.defaultTimeoutMs,
        maxOutputBytes: this.maxOutputBytes,
        sessions: sandbox.sessions,
        ...(options.python && this.options.forkServer !== false ? { python: options.python } : {}),
      });
    } catch (error) {
      if (error instanceof HelperLostError) await sandbox.checkAlive(error);
      throw error;
    }
  }

  /**
   * The pod's fork server (see @debug-gym/terminal's README): started by the helper, and again by a
   * helper that replaces one whose exec connection dropped.
   */
  async startForkServer(options: ForkServerOptions = {}): Promise<ForkServerStatus> {
    if (this.options.forkServer === false) return { ready: false, reason: 'the fork server is turned off (forkServer: false)' };
    const sandbox = this.requireSandbox();
    const params = forkStartParams({
      python: this.python,
      workdir: this.workdirPath,
      groups: options.preload ?? DEFAULT_FORK_GROUPS,
      standbys: options.standbys !== false,
      env: { ...SANDBOX_FIXED_ENV, TERM: 'dumb', ...this.options.env },
    });
    sandbox.forkStart = params;
    try {
      return forkServerStatus(await sandbox.call('fork_start', params, { retry: false }));
    } catch (error) {
      return { ready: false, reason: `the fork server could not start: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    const sandbox = this.sandbox;
    this.sandbox = undefined;
    await sandbox?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Copy a host directory's contents in: a tar through the helper (over the exec connection), owned by the pod's user. */
  async copyIn(hostDir: string, targetDir?: string): Promise<void> {
    const sandbox = this.requireSandbox();
    await requireHostDirectory(hostDir);
    const target = this.resolve(targetDir ?? this.workdirPath);
    await this.fileCall('mkdir', target);
    const owner = { uid: Number(sandbox.info?.uid ?? 0), gid: Number(sandbox.info?.gid ?? 0) };
    const inline = await archiveBytes(packDirectory(hostDir, owner, { ownerWritable: true }), COPY_CHUNK);
    if (inline) {
      await this.fileCall('untar', target, { data: inline.toString('base64') });
      return;
    }
    await sandbox.untarStream(packDirectory(hostDir, owner, { ownerWritable: true }), target, COPY_CHUNK);
  }

  private requireSandbox(): KubernetesSandbox {
    if (!this.sandbox) throw new TerminalNotStartedError(this.kind);
    this.sandbox.ensureUsable();
    return this.sandbox;
  }

  protected helperCall(op: string, params: Record<string, unknown>): Promise<HelperResponse> {
    return this.requireSandbox().call(op, params, { retry: true });
  }

  /** Set-up commands come from the owner; they run as the pod's user (a pod never has root). */
  private async runSetupCommand(command: string): Promise<void> {
    const result = await this.run(command, {});
    if (result.exitCode === 0) return;
    const status = result.timedOut ? 'timed out' : `failed with exit code ${result.exitCode ?? 'none (killed)'}`;
    const output = result.output.trim();
    throw new SandboxUnavailableError(`Kubernetes setup command \`${command}\` ${status}${output ? `:\n${output.slice(-4000)}` : ' (no output)'}`);
  }
}
