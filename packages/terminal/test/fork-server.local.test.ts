import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { FORK_SERVER_SOURCE } from '../src/fork-server-source.generated.js';
import { describeForkServer } from './fork-server-suite.js';

test('the embedded fork server is the one in src/python (run `node scripts/embed-python.mjs` after editing it)', () => {
  expect(FORK_SERVER_SOURCE).toBe(readFileSync(new URL('../src/python/fork_server.py', import.meta.url), 'utf8'));
});

describeForkServer('local');
