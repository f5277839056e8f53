/** The pause contract on the sandboxed backends here; Kubernetes runs it against its fake cluster. */
import { describe, expect, it } from 'vitest';
import type { Terminal } from '@debug-gym/core';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { DockerTerminal } from '../src/docker-terminal.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { describePauseContract } from './pause-contract.js';
import { requireOrSkip } from './sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from './sandbox-status.js';

const bubblewrap = await checkBubblewrap();
const docker = await dockerTestStatus();

describe('local', () => {
  it('does not offer pauseProcesses: its commands run on the host (trusted code only)', () => {
    expect((new LocalTerminal() as Terminal).pauseProcesses).toBeUndefined();
  });
});

if (requireOrSkip('bubblewrap', bubblewrap.available, bubblewrap.reason)) {
  describePauseContract('bubblewrap', () => new BubblewrapTerminal({ defaultTimeoutMs: 30_000 }));
}
if (requireOrSkip('docker', docker.available, docker.reason)) {
  describePauseContract('docker', () => new DockerTerminal({ image: TEST_IMAGE, defaultTimeoutMs: 30_000 }));
}
