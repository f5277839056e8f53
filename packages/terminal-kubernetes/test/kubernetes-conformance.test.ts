/**
 * The shared terminal conformance suite, run through the Kubernetes backend against a FAKE
 * Kubernetes API server (test/fake-cluster: no cluster can run here) whose pods are real Docker
 * containers and whose exec really runs the command: real commands, a real PTY and real pdb go
 * through the backend's pod, exec and WebSocket code. What the fake cannot show about a real
 * cluster is listed in the README ("What was verified").
 */
import { describe } from 'vitest';
import type { KubernetesTerminal } from '../src/index.js';
import { describeTerminalConformance } from '../../terminal/test/conformance.js';
import { describePauseContract } from '../../terminal/test/pause-contract.js';
import { clusterTestsCanRun, useTestCluster } from './fake-cluster/test-cluster.js';

describe.runIf(await clusterTestsCanRun())('kubernetes (fake API server, pods as Docker containers)', () => {
  const cluster = useTestCluster('conformance');
  describeTerminalConformance('kubernetes', () => cluster.terminal(), {
    // The fake's pods are containers on this kernel: their processes show up in this host's /proc.
    hostProcesses: true,
    hostWorkdir: false,
    // Each cycle is a pod; a few prove deletion, the Docker suite runs the long sweep.
    cycles: 3,
    sandboxId: (terminal) => (terminal as KubernetesTerminal).podName,
    sandboxesLeft: (names) => cluster.podsLeft(names),
    // The helper runs as the agent's uid: a `python` directory it made, the agent could rewrite.
    pythonCommands: { missing: 'no directory the agent cannot rewrite (see the terminal README, Environment)' },
  });
});

describe.runIf(await clusterTestsCanRun())('kubernetes: pausing the agent for a scoring run', () => {
  const cluster = useTestCluster('pause');
  describePauseContract('kubernetes', () => cluster.terminal());
});
