/**
 * The leak soak: 50 start/close cycles on every backend, each leaving a background process behind
 * (`pnpm test` runs 12 in the conformance suite). Nothing may be left: no temp dir, process or sandbox.
 */
import { describe, it } from 'vitest';
import { BubblewrapTerminal } from '../../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../../src/bubblewrap-probe.js';
import { DockerTerminal } from '../../src/docker.js';
import { LocalTerminal } from '../../src/local-terminal.js';
import { expectNoLeaksAfterCycles } from '../conformance.js';
import { DOCKER_CAPABILITIES } from '../docker-capabilities.js';
import { requireOrSkip } from '../sandbox-availability.js';
import { TEST_IMAGE, dockerTestStatus } from '../sandbox-status.js';

const CYCLES = 50;
const bubblewrap = await checkBubblewrap();
const docker = await dockerTestStatus();

describe('50 start/close cycles leave nothing behind', () => {
  it('local', async () => {
    // The local zygote (started by the second terminal, kept while terminals come and go) is this
    // process's, not a cycle's: started first, outside the cycles' private TMPDIR.
    for (let index = 0; index < 2; index++) {
      const warm = new LocalTerminal({ defaultTimeoutMs: 30_000 });
      await warm.start();
      await warm.close();
    }
    await expectNoLeaksAfterCycles(() => new LocalTerminal({ defaultTimeoutMs: 30_000 }), { hostProcesses: true, hostWorkdir: true }, CYCLES);
  });

  it.runIf(requireOrSkip('bubblewrap', bubblewrap.available, bubblewrap.reason))('bubblewrap', async () => {
    await expectNoLeaksAfterCycles(() => new BubblewrapTerminal({ defaultTimeoutMs: 30_000 }), { hostProcesses: true, hostWorkdir: false }, CYCLES);
  });

  it.runIf(requireOrSkip('docker', docker.available, docker.reason))('docker', async () => {
    await expectNoLeaksAfterCycles(() => new DockerTerminal({ image: TEST_IMAGE, defaultTimeoutMs: 30_000 }), DOCKER_CAPABILITIES, CYCLES);
  });
});
