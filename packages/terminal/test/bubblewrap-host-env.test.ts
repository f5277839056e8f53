import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { hostProgram, splitJailEnv } from '../src/jail-host-env.js';
import { requireOrSkip } from './sandbox-availability.js';

const status = await checkBubblewrap();

describe('what a sandbox env may set acts inside the jail, never on the host (issue 26 §4)', () => {
  it('loader, shell and PATH variables go through --setenv; the rest stay in the environment; bwrap is found on the server\'s PATH', () => {
    const { host, setenv } = splitJailEnv({ LD_PRELOAD: '/x.so', GCONV_PATH: '/g', BASH_ENV: '/b', PATH: '/evil:/usr/bin', HOME: '/tmp', TOKEN: 's' });
    expect(host).toEqual({ HOME: '/tmp', TOKEN: 's', PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' });
    expect(setenv).toEqual(['--setenv', 'LD_PRELOAD', '/x.so', '--setenv', 'GCONV_PATH', '/g', '--setenv', 'BASH_ENV', '/b', '--setenv', 'PATH', '/evil:/usr/bin']);
    expect(hostProgram('sh', '/nowhere:/bin')).toBe('/bin/sh');
    expect(hostProgram('./bwrap')).toBe('./bwrap');
    expect(hostProgram('no-such-program-here', '/bin')).toBe('no-such-program-here');
  });

  describe.runIf(requireOrSkip('bubblewrap', status.available, status.reason))('a real jail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dg-host-env-'));
    const marker = join(dir, 'LOADED-ON-THE-HOST');
    let terminal: BubblewrapTerminal | undefined;
    afterAll(() => terminal?.close());

    it("an LD_PRELOAD library (what an agent could write and a client name) never loads in the host's bwrap; the sandbox still sees the variables", async () => {
      // A library whose constructor marks the file system: loaded by any host-side process, it leaves the marker.
      const source = join(dir, 'evil.c');
      writeFileSync(source, `#include <stdio.h>\n__attribute__((constructor)) static void mark(void) { FILE *f = fopen("${marker}", "w"); if (f) fclose(f); }\n`);
      const library = join(dir, 'evil.so');
      execFileSync('cc', ['-shared', '-fPIC', '-o', library, source]);
      terminal = new BubblewrapTerminal({ defaultTimeoutMs: 30_000, env: { LD_PRELOAD: library, DG_MARK: 'kept' } });
      await terminal.start();
      // The jail does not show the host's temp dir: inside, the preload fails quietly; outside, it would have run.
      const inside = await terminal.run('printenv LD_PRELOAD DG_MARK');
      expect(inside.output).toContain(`${library}\nkept\n`);
      expect(existsSync(marker)).toBe(false);
    });
  });
});
