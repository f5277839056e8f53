/**
 * The Docker backend's container lifecycle: the container spec (limits, network, labels), create
 * (pulling or building a missing image), start (without `--init` on engines that have none),
 * removal, and why a container is no longer usable.
 */
import type Docker from 'dockerode';
import { SandboxUnavailableError } from '@debug-gym/core';
import {
  defaultImageTag,
  ensureDefaultImage,
  ownerLabels,
  pullImage,
  registerContainer,
  unregisterContainer,
} from './docker-engine.js';
import { LAUNCH_ENV_PREFIX, sandboxLaunch } from './docker-helper-client.js';
import { hostLimits, isQuotaRefusal, quotaRefused, readOnlyRoot, sandboxUser } from './docker-limits.js';
import { forgetHostsFile, hostsFileRefused, hostsMount, isHostsMountError, localhostHostsFile } from './docker-hosts-file.js';
import type { DockerTerminalOptions } from './docker-terminal.js';

export interface ContainerConfig {
  docker: Docker;
  options: DockerTerminalOptions;
  /** Working directory of the container. */
  workdir: string;
  image: string;
  /** Interpreter of the helper the container starts. */
  python: string;
  /** The engine can size the writable layer (StorageOpt); unset when it refused once. */
  storageQuota: boolean;
  /** The engine-side hosts file bound at /etc/hosts (read-only root without network); see docker-hosts-file.ts. */
  hostsFile?: string | undefined;
  /** The hosts file was made again after a refused bind (a second refusal gives it up for the engine). */
  hostsFileRemade?: boolean;
}

function hostConfig(config: ContainerConfig): Docker.HostConfig {
  const { options } = config;
  return {
    ...hostLimits(options, config.workdir, config.storageQuota),
    ...(config.hostsFile ? { Mounts: [hostsMount(config.hostsFile)] } : {}),
    AutoRemove: true,
    Init: options.init ?? true,
    NetworkMode: options.network === true ? 'bridge' : typeof options.network === 'string' ? options.network : 'none',
  };
}

/** Launch data for the helper: the user its commands, sessions and file operations run as. */
function userEnv(options: DockerTerminalOptions): string[] {
  const user = sandboxUser(options);
  return user ? [`${LAUNCH_ENV_PREFIX}RUN_AS=${user.uid}:${user.gid}`] : [];
}

/** No network: no libnetwork sandbox either (its setup hook re-executes dockerd at every start). */
function networkOff(options: DockerTerminalOptions): boolean {
  return options.network === undefined || options.network === false;
}

function containerSpec(config: ContainerConfig, init: boolean): Docker.ContainerCreateOptions {
  const launch = sandboxLaunch(config.python);
  return {
    Image: config.image,
    // runc still gives the container a network namespace of its own, with only a loopback device.
    NetworkDisabled: networkOff(config.options),
    Entrypoint: [],
    Cmd: launch.cmd,
    Env: [...launch.env, ...userEnv(config.options)],
    // The helper starts as root whatever the image's USER, so it can hand commands to the sandbox user.
    ...(sandboxUser(config.options) ? { User: '0:0' } : {}),
    WorkingDir: config.workdir,
    Labels: { ...config.options.labels, ...ownerLabels() },
    Tty: false,
    // The helper talks over the container's own stdin/stdout; stdin closes when the client's
    // attach connection does (so an owner that died leaves a helper that sees EOF and stops all).
    OpenStdin: true,
    StdinOnce: true,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    StopSignal: 'SIGTERM',
    // The protocol (file contents, command output) must not end up in the engine's log files.
    HostConfig: { ...hostConfig(config), Init: init, LogConfig: { Type: 'none', Config: {} } },
  };
}

/** Does this container need the engine's hosts file (no network, so no /etc/hosts of the engine's, and a root the helper cannot write)? */
function needsHostsFile(config: ContainerConfig): boolean {
  return readOnlyRoot(config.options) && networkOff(config.options);
}

/** Create the sandbox container; a missing image is pulled (or, for the default recipe, built) once. */
export async function createContainer(config: ContainerConfig, init = config.options.init ?? true): Promise<Docker.Container> {
  const { docker, image } = config;
  if (needsHostsFile(config)) config.hostsFile = await localhostHostsFile(docker, image).catch(() => undefined);
  try {
    return await docker.createContainer(containerSpec(config, init));
  } catch (error) {
    if (config.hostsFile && isHostsMountError(error, config.hostsFile)) {
      // The volume was pruned since (made again once), or the engine cannot bind its own volume's file (go without).
      if (config.hostsFileRemade) hostsFileRefused(docker);
      else forgetHostsFile(docker);
      config.hostsFileRemade = true;
      return createContainer(config, init);
    }
    if (config.storageQuota && isQuotaRefusal(error)) {
      // overlay2 on xfs without pquota: the working copy goes on a sized tmpfs instead.
      quotaRefused(docker);
      config.storageQuota = false;
      return createContainer(config, init);
    }
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404 && /image/i.test((error as Error).message)) {
      if (config.options.image === undefined && image === defaultImageTag()) {
        await ensureDefaultImage({ docker });
      } else {
        await pullImage(docker, image);
      }
      if (needsHostsFile(config)) config.hostsFile ??= await localhostHostsFile(docker, image).catch(() => undefined);
      return docker.createContainer(containerSpec(config, init));
    }
    throw unavailable(error, `Could not create a Docker container from ${image}`);
  }
}

/**
 * Start the container, calling `beforeStart` on it first (to attach to it). Engines without an
 * init binary (`docker-init`) refuse Init: the container is then replaced once by one without it,
 * reported through `onReplace` before it is attached to and started.
 */
export async function startContainer(
  container: Docker.Container,
  config: ContainerConfig,
  beforeStart: (target: Docker.Container) => Promise<void>,
  onReplace: (replacement: Docker.Container) => void,
): Promise<void> {
  const { image } = config;
  try {
    await beforeStart(container);
    await container.start();
  } catch (error) {
    if ((config.options.init ?? true) && /docker-init|init binary|init.*not found/i.test((error as Error).message)) {
      await removeContainer(container).catch(() => undefined);
      unregisterContainer(container.id);
      const replacement = await createContainer(config, false);
      onReplace(replacement);
      try {
        await beforeStart(replacement);
        await replacement.start();
      } catch (again) {
        throw unavailable(again, `Could not start a Docker container from ${image}`);
      }
      return;
    }
    throw unavailable(error, `Could not start a Docker container from ${image}`);
  }
}

/** Force-remove a container; when the engine is already removing it (409), wait until it is gone. */
export async function removeContainer(container: Docker.Container): Promise<void> {
  try {
    await container.remove({ force: true, v: true });
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404) return;
    if (status !== 409) throw error;
    await container.wait({ condition: 'removed' }).catch(() => undefined);
  }
}

/** Why the container can no longer be used; undefined while it runs. */
export async function deathReason(container: Docker.Container): Promise<string | undefined> {
  try {
    const info = await container.inspect();
    if (info.State.Running && !info.State.Restarting) return undefined;
    const details = [`exit code ${info.State.ExitCode}`];
    if (info.State.OOMKilled) details.push('killed for running out of memory');
    return `The Docker container ${container.id.slice(0, 12)} stopped (${details.join(', ')}).`;
  } catch (error) {
    return (error as { statusCode?: number }).statusCode === 404
      ? `The Docker container ${container.id.slice(0, 12)} is gone (it was killed or removed).`
      : `The Docker engine stopped answering: ${(error as Error).message}.`;
  }
}

export function unavailable(error: unknown, what: string): Error {
  if (error instanceof SandboxUnavailableError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const hint =
    code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'EACCES'
      ? ' Is the Docker engine running and its socket readable (scripts/start-docker.sh)?'
      : '';
  return new SandboxUnavailableError(`${what}: ${(error as Error).message}.${hint}`, { cause: error });
}

/**
 * The image's tree at `path` as a tar stream, from a container of the image that never starts (the
 * sandbox's own would show its tmpfs there, and the engine holds a container's lock while one of
 * its archives streams, which would keep the sandbox from starting); undefined when the image has
 * nothing there. `release` removes that container once the stream was read.
 */
export async function imageTree(docker: Docker, image: string, path: string): Promise<{ archive: NodeJS.ReadableStream | undefined; release: () => Promise<void> }> {
  const source = await docker.createContainer({
    Image: image,
    Entrypoint: [],
    Cmd: ['true'],
    NetworkDisabled: true,
    Labels: ownerLabels(),
    HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'none', Config: {} } },
  });
  registerContainer(docker, source.id);
  const release = async (): Promise<void> => {
    await removeContainer(source).catch(() => undefined);
    unregisterContainer(source.id);
  };
  try {
    return { archive: await source.getArchive({ path }), release };
  } catch (error) {
    await release();
    if ((error as { statusCode?: number }).statusCode === 404) return { archive: undefined, release: async () => undefined };
    throw error;
  }
}
