/** The terminal contract on Docker (its own file, so it runs beside docker.test.ts's engine-specific tests). */
import Docker from 'dockerode';
import { describe } from 'vitest';
import { DockerTerminal, dockerRunId } from '../src/docker.js';
import { describeTerminalConformance } from './conformance.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';

const docker = new Docker();
const status = await dockerTestStatus();
const runDocker = requireOrSkip('docker', status.available, status.reason);

describe.runIf(runDocker)('docker', () => {
  describeTerminalConformance('docker', () => new DockerTerminal({ image: TEST_IMAGE, defaultTimeoutMs: 30_000 }), {
    // The engine runs on this kernel (Linux): container processes show up in the host's /proc.
    hostProcesses: process.platform === 'linux',
    hostWorkdir: false,
    sandboxId: (term) => (term as DockerTerminal).containerId,
    sandboxesLeft: async (ids) => {
      const wanted = new Set(ids);
      const ours = await docker.listContainers({ all: true, filters: { label: [`debug-gym.run=${dockerRunId}`] } });
      return ours.map((info) => info.Id).filter((id) => wanted.has(id));
    },
  });
});
