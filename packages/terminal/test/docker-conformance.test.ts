/** The terminal contract on Docker (its own file, so it runs beside docker.test.ts's engine-specific tests). */
import { describe } from 'vitest';
import { DockerTerminal } from '../src/docker.js';
import { describeTerminalConformance } from './conformance.js';
import { DOCKER_CAPABILITIES } from './docker-capabilities.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';

const status = await dockerTestStatus();
const runDocker = requireOrSkip('docker', status.available, status.reason);

describe.runIf(runDocker)('docker', () => {
  describeTerminalConformance('docker', () => new DockerTerminal({ image: TEST_IMAGE, defaultTimeoutMs: 30_000 }), DOCKER_CAPABILITIES);
});
