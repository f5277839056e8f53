import { describe, expect, it } from 'vitest';
import { FileTooLargeError } from '@debug-gym/core';
import { LocalTerminal } from '../src/local-terminal.js';
import { describeTerminalConformance } from './conformance.js';

describeTerminalConformance('local', () => new LocalTerminal({ defaultTimeoutMs: 30_000 }), {
  hostProcesses: true,
  hostWorkdir: true,
});

describe('local readFile with a cap', () => {
  it('reads a file whose size on stat is 0 (procfs) in growing chunks, and still stops one byte past the cap', async () => {
    const term = new LocalTerminal({ defaultTimeoutMs: 30_000 });
    await term.start();
    try {
      // Node's own memory map: tens of kilobytes, though stat says 0 bytes.
      const maps = Buffer.from(await term.readFile('/proc/self/maps', { maxBytes: 16 * 1024 * 1024 })).toString();
      expect(maps.length).toBeGreaterThan(16 * 1024);
      expect(maps.trimEnd().split('\n').every((line) => /^[0-9a-f]+-[0-9a-f]+ /.test(line))).toBe(true);
      await expect(term.readFile('/proc/self/maps', { maxBytes: 10_000 })).rejects.toBeInstanceOf(FileTooLargeError);
    } finally {
      await term.close();
    }
  });
});
