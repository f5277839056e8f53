import { FileTooLargeError } from '@debug-gym/core';
import { availableBackends } from '@debug-gym/test-utils';
import { afterAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';

const backends = await availableBackends();

describe.each(backends)('huge files on $name', (backend) => {
  const terminal = backend.create();
  afterAll(() => terminal.close());

  attack('capped read of a 256 MiB file the agent wrote', backend.name, async () => {
    await terminal.start();
    const made = await terminal.run('head -c 268435456 /dev/zero > big.bin && echo made');
    expect(made.output).toContain('made');
    const read = terminal.readFile('big.bin', { maxBytes: 1024 * 1024 });
    await expect(read).rejects.toBeInstanceOf(FileTooLargeError);
    await expect(read).rejects.toThrow(/too large to read \(256\.0 MiB; the limit is 1\.0 MiB\)/);
  });
});
