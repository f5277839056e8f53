/**
 * Whether the Docker and bubblewrap suites can run here, for the test files (which skip or fail)
 * and for vitest.config.ts (which enforces the coverage threshold only when they all run). No
 * vitest imports: the config loads this file.
 */
import Docker from 'dockerode';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { dockerAvailable } from '../src/docker-engine.js';

export type SandboxKind = 'docker' | 'bubblewrap';

export interface SandboxStatus {
  available: boolean;
  /** Why not, and what to do about it. */
  reason?: string;
}

export const TEST_IMAGE = process.env.DEBUG_GYM_DOCKER_IMAGE ?? 'debug-gym/python-offline:bookworm';

export function sandboxesRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.DEBUG_GYM_REQUIRE_SANDBOXES === '1';
}

export async function imagePresent(image: string, docker: Docker = new Docker()): Promise<boolean> {
  try {
    await docker.getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/** The Docker suites need an engine that answers and the test image. */
export async function dockerTestStatus(): Promise<SandboxStatus> {
  if (!(await dockerAvailable())) return { available: false, reason: 'no Docker engine answers (start one with scripts/start-docker.sh)' };
  if (!(await imagePresent(TEST_IMAGE))) return { available: false, reason: `image ${TEST_IMAGE} is missing (build it with scripts/build-offline-image.sh)` };
  return { available: true };
}

/** The sandbox suites that will be skipped in this run (none when DEBUG_GYM_REQUIRE_SANDBOXES=1: they fail instead). */
export async function skippedSandboxes(): Promise<SandboxKind[]> {
  if (sandboxesRequired()) return [];
  const [docker, bubblewrap] = await Promise.all([dockerTestStatus(), checkBubblewrap()]);
  return [...(docker.available ? [] : (['docker'] as const)), ...(bubblewrap.available ? [] : (['bubblewrap'] as const))];
}
