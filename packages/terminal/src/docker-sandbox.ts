/**
 * One running sandbox container and its helper: start-up (attached to the container's own stdio),
 * a new helper through `docker exec` when a command killed the old one, and telling a dead
 * container from a killed helper. The helper plumbing is HelperSandbox's.
 */
import type Docker from 'dockerode';
import { SandboxUnavailableError } from '@debug-gym/core';
import { registerContainer, unregisterContainer } from './docker-engine.js';
import { type ContainerConfig, createContainer, deathReason, removeContainer, startContainer } from './docker-container.js';
import { type HelperClient, attachHelper, execHelper } from './docker-helper-client.js';
import { HelperSandbox } from './helper-sandbox.js';

export class DockerSandbox extends HelperSandbox {
  protected readonly kind = 'docker';

  private constructor(
    /** The container (replaced once when the engine has no init binary). */
    public container: Docker.Container,
    private readonly config: ContainerConfig,
  ) {
    super();
  }

  /** Create and start a container, with its helper ready; nothing is left behind when it fails. */
  static async start(config: ContainerConfig): Promise<DockerSandbox> {
    const container = await createContainer(config);
    registerContainer(config.docker, container.id);
    const sandbox = new DockerSandbox(container, config);
    let attached: HelperClient | undefined;
    try {
      await startContainer(
        container,
        config,
        async (target) => {
          attached?.close();
          attached = await attachHelper(target);
        },
        (replacement) => {
          sandbox.container = replacement;
          registerContainer(config.docker, replacement.id);
        },
      );
      const client = attached as HelperClient;
      await sandbox.spawnHelper(async () => client);
      return sandbox;
    } catch (error) {
      attached?.close();
      await sandbox.close();
      throw error;
    }
  }

  protected deathReason(): Promise<string | undefined> {
    return deathReason(this.container);
  }

  protected connectHelper(): Promise<HelperClient> {
    return execHelper(this.container, this.config.python);
  }

  protected describe(): string {
    return `container ${this.container.id.slice(0, 12)}`;
  }

  protected helperUnavailable(error: Error): Error {
    return new SandboxUnavailableError(
      `The Docker image ${this.config.image} cannot run the debug-gym helper, which needs Python >= 3.8 ` +
        `(python option: '${this.config.python}'): ${error.message}`,
      { cause: error },
    );
  }

  /** Map an engine error during an operation on a running sandbox (409: not running, 404: gone). */
  protected override async deathError(error: unknown): Promise<Error> {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404 || status === 409 || status === 500) {
      try {
        await this.checkAlive(error as Error);
      } catch (dead) {
        return dead as Error;
      }
    }
    return error as Error;
  }

  /** Kill and remove the container in one call; every process in it dies with it. */
  protected async destroy(): Promise<void> {
    try {
      await removeContainer(this.container);
    } finally {
      unregisterContainer(this.container.id);
    }
  }
}
