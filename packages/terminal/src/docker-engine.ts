/**
 * Process-wide Docker plumbing for the Docker backend: the engine connection, availability check,
 * ownership labels, the registry of live containers (removed on exit and on SIGINT/SIGTERM/SIGHUP),
 * garbage collection of containers whose owner died, and the default-image recipe.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import Docker from 'dockerode';
import { SandboxUnavailableError } from '@debug-gym/core';
import { pack } from 'tar-stream';

/** A Dockerode instance, or the path of the engine's unix socket. */
export type DockerConnection = Docker | string;

export const LABEL_APP = 'app';
export const LABEL_APP_VALUE = 'debug-gym';
export const LABEL_PID = 'debug-gym.pid';
export const LABEL_PID_START = 'debug-gym.pid-start';
export const LABEL_HOST = 'debug-gym.host';
export const LABEL_RUN = 'debug-gym.run';

/** Random id of this Node process; every container it creates carries it as the `debug-gym.run` label. */
export const dockerRunId: string = randomBytes(6).toString('hex');

let defaultDocker: Docker | undefined;
const bySocket = new Map<string, Docker>();

/** Dockerode for a connection option (default: `DOCKER_HOST` or `/var/run/docker.sock`), one per socket. */
export function connectDocker(connection?: DockerConnection): Docker {
  if (connection instanceof Docker) return connection;
  if (typeof connection === 'string') {
    let docker = bySocket.get(connection);
    if (!docker) {
      docker = new Docker({ socketPath: connection });
      bySocket.set(connection, docker);
    }
    return docker;
  }
  defaultDocker ??= new Docker();
  return defaultDocker;
}

const availability = new WeakMap<Docker, Promise<boolean>>();

/**
 * True when a Docker engine answers a ping (within `timeoutMs`). The answer is cached per engine
 * for the life of the process, so calling it before every test is free.
 */
export function dockerAvailable(options: { docker?: DockerConnection; timeoutMs?: number } = {}): Promise<boolean> {
  const docker = connectDocker(options.docker);
  let cached = availability.get(docker);
  if (!cached) {
    cached = pingDocker(docker, options.timeoutMs ?? 2000);
    availability.set(docker, cached);
  }
  return cached;
}

async function pingDocker(docker: Docker, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    const ping = docker.ping().then(
      () => true,
      () => false,
    );
    return await Promise.race([ping, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The start time of a process (clock ticks since boot, Linux only); tells a reused pid apart. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Labels that tie a container to this process, so `gcContainers()` can tell orphans apart. */
export function ownerLabels(): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_APP]: LABEL_APP_VALUE,
    [LABEL_PID]: String(process.pid),
    [LABEL_HOST]: hostname(),
    [LABEL_RUN]: dockerRunId,
  };
  const started = processStartTime(process.pid);
  if (started) labels[LABEL_PID_START] = started;
  return labels;
}

/** Is the process that created a container (per its labels) still alive on this host? */
export function ownerAlive(labels: Record<string, string>): boolean {
  if (labels[LABEL_HOST] !== hostname()) return true; // cannot tell: never collect another host's containers
  const pid = Number(labels[LABEL_PID]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (labels[LABEL_RUN] === dockerRunId) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const expected = labels[LABEL_PID_START];
  const actual = processStartTime(pid);
  // Same pid but another start time: the owner died and the pid was reused.
  return !(expected && actual && expected !== actual);
}

/**
 * Remove every container labelled `app=debug-gym` whose owning process is gone (crashed, SIGKILLed)
 * on this host. Returns how many containers were removed (`dryRun`: would be); `onRemoved` hears each.
 * `gc()` calls it.
 */
export async function gcContainers(
  options: { docker?: DockerConnection; dryRun?: boolean; onRemoved?: (id: string) => void } = {},
): Promise<number> {
  const docker = connectDocker(options.docker);
  const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL_APP}=${LABEL_APP_VALUE}`] } });
  let removed = 0;
  for (const info of containers) {
    if (ownerAlive(info.Labels ?? {})) continue;
    try {
      if (!options.dryRun) await docker.getContainer(info.Id).remove({ force: true, v: true });
      options.onRemoved?.(info.Id);
      removed += 1;
    } catch (error) {
      if (!isGoneError(error)) throw error;
    }
  }
  return removed;
}

/** 404 (no such container) or 409 (removal already in progress): the container is going away anyway. */
export function isGoneError(error: unknown): boolean {
  const status = (error as { statusCode?: number } | undefined)?.statusCode;
  return status === 404 || status === 409;
}

// ---------------------------------------------------------------------------------------------
// Registry of live containers: removed when the process exits or is interrupted.

interface LiveContainer {
  docker: Docker;
  id: string;
}

const live = new Map<string, LiveContainer>();
let handlersInstalled = false;
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function registerContainer(docker: Docker, id: string): void {
  live.set(id, { docker, id });
  installHandlers();
}

export function unregisterContainer(id: string): void {
  live.delete(id);
}

/** Ids of the containers this process still owns (for tests and diagnostics). */
export function liveContainerIds(): string[] {
  return [...live.keys()];
}

/** Force-remove every registered container; resolves when all removals finished or failed. */
export async function removeLiveContainers(): Promise<void> {
  const entries = [...live.values()];
  live.clear();
  await Promise.all(
    entries.map((entry) => entry.docker.getContainer(entry.id).remove({ force: true, v: true }).catch(() => undefined)),
  );
}

function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', removeLiveContainersSync);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function onSignal(signal: NodeJS.Signals): void {
  const others = process.listenerCount(signal) - 1;
  const timer = setTimeout(() => finish(), 5000);
  timer.unref?.();
  let finished = false;
  function finish(): void {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    // Somebody else handles this signal: leave the decision to exit to them.
    if (others > 0) return;
    // Nobody else does: restore the default behaviour (terminate with the signal) and re-raise it.
    for (const s of SIGNALS) process.removeListener(s, onSignal);
    process.removeListener('exit', removeLiveContainersSync);
    handlersInstalled = false;
    process.kill(process.pid, signal);
  }
  void removeLiveContainers().then(finish, finish);
}

/**
 * `exit` handlers cannot wait for I/O: remove what is left with a short synchronous child process
 * that talks to the engine's socket (no docker CLI needed).
 */
export function removeLiveContainersSync(): void {
  if (live.size === 0) return;
  const idsBySocket = new Map<string, string[]>();
  for (const entry of live.values()) {
    const socket = socketPathOf(entry.docker);
    if (!socket) continue;
    idsBySocket.set(socket, [...(idsBySocket.get(socket) ?? []), entry.id]);
  }
  live.clear();
  for (const [socket, ids] of idsBySocket) {
    spawnSync(process.execPath, ['-e', SYNC_REMOVE_SCRIPT, socket, ...ids], { stdio: 'ignore', timeout: 10_000 });
  }
}

function socketPathOf(docker: Docker): string | undefined {
  // docker-modem keeps a string, or a function it resolved once (cached) for the default socket.
  const modem = docker.modem as { socketPath?: unknown; socketPathCache?: unknown; host?: unknown };
  if (typeof modem.socketPath === 'string') return modem.socketPath;
  if (typeof modem.socketPathCache === 'string') return modem.socketPathCache;
  return typeof modem.socketPath === 'function' ? '/var/run/docker.sock' : undefined;
}

const SYNC_REMOVE_SCRIPT = `
const http = require('node:http');
const [socketPath, ...ids] = process.argv.slice(1);
for (const id of ids) {
  http.request({ socketPath, method: 'DELETE', path: '/containers/' + id + '?force=1&v=1' }, (res) => res.resume()).on('error', () => {}).end();
}
`;

// ---------------------------------------------------------------------------------------------
// Default image: python:3.12-slim plus the test tooling, built once and tagged by a recipe hash.

export const DEFAULT_BASE_IMAGE = 'python:3.12-slim';
export const DEFAULT_IMAGE_REPOSITORY = 'debug-gym/python';

/** The Dockerfile of the default image. Changing it changes the tag, so stale images are never reused. */
export function defaultImageRecipe(baseImage: string = DEFAULT_BASE_IMAGE): string {
  return [
    `FROM ${baseImage}`,
    'ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1 LANG=C.UTF-8',
    'RUN apt-get update && apt-get install -y --no-install-recommends git procps && rm -rf /var/lib/apt/lists/*',
    'RUN pip install pytest pandas',
    'WORKDIR /workspace',
    'CMD ["/bin/bash"]',
    '',
  ].join('\n');
}

/** `<repository>:<first 12 hex of sha256(dockerfile)>`: a tag that changes whenever the recipe does. */
export function recipeTag(dockerfile: string, repository: string = DEFAULT_IMAGE_REPOSITORY): string {
  const hash = createHash('sha256').update(dockerfile).digest('hex').slice(0, 12);
  return `${repository}:${hash}`;
}

/** `debug-gym/python:<hash12>` of the default recipe. */
export function defaultImageTag(recipe: string = defaultImageRecipe()): string {
  return recipeTag(recipe);
}

/** The image a DockerTerminal uses when none is configured: `DEBUG_GYM_DOCKER_IMAGE`, else the recipe tag. */
export function defaultImageName(env: NodeJS.ProcessEnv = process.env): string {
  return env.DEBUG_GYM_DOCKER_IMAGE || defaultImageTag();
}

export async function imageExists(docker: Docker, image: string): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

const building = new Map<string, Promise<string>>();

/**
 * Build the default image (`python:3.12-slim` + pytest, pandas, git) if it is missing and return its
 * tag. Needs Docker Hub and PyPI the first time (a minute or two); afterwards the tag is found
 * locally and this returns at once. Offline machines use `scripts/build-offline-image.sh` and pass
 * its image via `image` / `DEBUG_GYM_DOCKER_IMAGE` instead.
 */
export function ensureDefaultImage(options: { docker?: DockerConnection; baseImage?: string } = {}): Promise<string> {
  return ensureImage(defaultImageRecipe(options.baseImage), { docker: options.docker });
}

/**
 * Build a Dockerfile (no build context besides it) once: tagged `<repository>:<recipe hash>`,
 * reused as long as that tag exists. Concurrent calls for the same recipe share one build.
 */
export function ensureImage(dockerfile: string, options: { docker?: DockerConnection; repository?: string } = {}): Promise<string> {
  const docker = connectDocker(options.docker);
  const tag = recipeTag(dockerfile, options.repository);
  let pending = building.get(tag);
  if (!pending) {
    pending = buildIfMissing(docker, dockerfile, tag).finally(() => building.delete(tag));
    building.set(tag, pending);
  }
  return pending;
}

async function buildIfMissing(docker: Docker, recipe: string, tag: string): Promise<string> {
  if (await imageExists(docker, tag)) return tag;
  const context = pack();
  context.entry({ name: 'Dockerfile', mode: 0o644 }, recipe);
  context.finalize();
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(context as unknown as NodeJS.ReadableStream, { t: tag, rm: true, forcerm: true });
  } catch (error) {
    throw new SandboxUnavailableError(buildFailureMessage(tag, String((error as Error).message ?? error)), { cause: error });
  }
  const failure = await new Promise<string | undefined>((resolve) => {
    docker.modem.followProgress(stream, (error: Error | null, events: Array<{ error?: string }>) => {
      if (error) return resolve(error.message);
      const failed = events.find((event) => event.error);
      resolve(failed?.error);
    });
  });
  if (failure) throw new SandboxUnavailableError(buildFailureMessage(tag, failure));
  return tag;
}

function buildFailureMessage(tag: string, detail: string): string {
  return (
    `Could not build the Docker image ${tag} (the default recipe needs Docker Hub and PyPI the first time): ${detail.trim()}. ` +
    'Offline, build one with scripts/build-offline-image.sh and set DEBUG_GYM_DOCKER_IMAGE (or the `image` option).'
  );
}

/** Pull an image that is missing locally; a clear SandboxUnavailableError when that fails. */
export async function pullImage(docker: Docker, image: string): Promise<void> {
  let failure: string | undefined;
  try {
    const stream = await docker.pull(image);
    failure = await new Promise<string | undefined>((resolve) => {
      docker.modem.followProgress(stream, (error: Error | null, events: Array<{ error?: string }>) => {
        resolve(error?.message ?? events.find((event) => event.error)?.error);
      });
    });
  } catch (error) {
    failure = (error as Error).message;
  }
  if (failure) {
    throw new SandboxUnavailableError(
      `Docker image ${image} is not available locally and could not be pulled: ${failure.trim()}. ` +
        'Build or pull it first (offline: scripts/build-offline-image.sh).',
    );
  }
}

/** '2g', '512m', '1.5G', '100k', or a number of bytes. */
export function parseMemory(value: number | string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`Invalid memory limit: ${value}`);
    return Math.floor(value);
  }
  const match = /^(\d+(?:\.\d+)?)\s*([kmgt]?)i?b?$/i.exec(value.trim());
  if (!match) throw new RangeError(`Invalid memory limit: '${value}' (use bytes or e.g. '512m', '2g')`);
  const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };
  const bytes = Math.floor(Number(match[1]) * units[match[2]!.toLowerCase()]!);
  if (bytes <= 0) throw new RangeError(`Invalid memory limit: '${value}'`);
  return bytes;
}
