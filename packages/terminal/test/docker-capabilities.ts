/** What the conformance suite and the leak soak may check of Docker sandboxes. */
import Docker from 'dockerode';
import { type DockerTerminal, dockerRunId } from '../src/docker.js';
import type { ConformanceCapabilities } from './conformance.js';

const engine = new Docker();

export const DOCKER_CAPABILITIES: ConformanceCapabilities = {
  // The engine runs on this kernel (Linux): container processes show up in the host's /proc.
  hostProcesses: process.platform === 'linux',
  hostWorkdir: false,
  sandboxId: (term) => (term as DockerTerminal).containerId,
  sandboxesLeft: async (ids) => {
    const wanted = new Set(ids);
    const ours = await engine.listContainers({ all: true, filters: { label: [`debug-gym.run=${dockerRunId}`] } });
    return ours.map((info) => info.Id).filter((id) => wanted.has(id));
  },
};
