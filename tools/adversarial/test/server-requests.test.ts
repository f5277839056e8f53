import { homedir } from 'node:os';
import { join } from 'node:path';
import { testdir } from '@debug-gym/test-utils';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
import { ServeClient, terminalParams } from '../src/serve-client.js';

// One server for the whole file: after every malformed request the SAME server must still answer.
let server: ServeClient;
const repo = testdir({ 'app.py': 'def add(a, b):\n    return a - b\n' });

/** A normal step on the server that just received the attack. */
async function stillServes(): Promise<void> {
  expect(await server.step('view', { path: 'app.py' })).toContain('return a - b');
}

/** `{"a": {"a": ... }}` nested `depth` levels, as text (JSON.stringify itself would overflow the stack). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function expectNoStack(reply: unknown): void {
  expect(JSON.stringify(reply)).not.toMatch(/\bat [^()]+\([^()]+:\d+:\d+\)|"stack"/);
}

describe('malformed requests to debug-gym serve', () => {
  beforeAll(async () => {
    server = new ServeClient();
    const reset = await server.call('reset', { path: repo, terminal: terminalParams('local'), tools: ['view'], evalOnReset: false });
    expect(reset.result).toBeDefined();
  });
  afterAll(() => server.end());

  attack('a 600 MB request line', 'server', async () => {
    const head = '{"jsonrpc":"2.0","id":"big","method":"step","params":{"name":"view","arguments":{"path":"';
    await server.write(head);
    const chunk = Buffer.alloc(8 * 1024 * 1024, 'a');
    for (let sent = 0; sent < 600 * 1024 * 1024; sent += chunk.length) await server.write(chunk);
    await server.write('"}}}\n');
    const reply = await server.next();
    expect(reply.error?.code).toBe(-32600);
    expect(reply.error?.message).toMatch(/too large/i);
    await stillServes();
    // The line was never held whole: the server stayed far below the line's size.
    expect(server.peakRssBytes()).toBeLessThan(300 * 1024 * 1024);
  }, 300_000);

  attack('tool arguments nested 10 000 levels deep', 'server', async () => {
    await server.write(`{"jsonrpc":"2.0","id":"deep","method":"step","params":{"name":"view","arguments":{"path":${nested(10_000)}}}}\n`);
    const reply = await server.next();
    expect(reply.id).toBe('deep');
    expect(reply.error?.code).toBe(-32600);
    expect(reply.error?.message).toMatch(/nested too deeply/);
    expectNoStack(reply);
    await stillServes();
  });

  attack('tool arguments nested 10 000 levels deep, as a JSON string', 'server', async () => {
    const reply = await server.call('step', { name: 'view', arguments: `{"path":${nested(10_000)}}` });
    const observation = (reply.result?.stepObservation as { observation: string } | undefined)?.observation;
    expect(observation).toMatch(/nested too deeply/);
    expectNoStack(reply);
    await stillServes();
  });

  attack('a line that is not JSON', 'server', async () => {
    await server.write('{"jsonrpc": "2.0", "id": 1, "method": \u0000 ]]\n');
    const reply = await server.next();
    expect(reply.error?.code).toBe(-32700);
    await stillServes();
  });

  attack('reset on / (and other paths that are no repository)', 'server', async () => {
    const file = join(repo, 'app.py');
    for (const [path, expected] of [
      ['/', /refus|root/i],
      [homedir(), /home directory/i],
      [file, /not a directory/i],
      [join(repo, 'missing'), /does not exist/i],
    ] as const) {
      const reply = await server.call('reset', { path, tools: ['view'] });
      expect(reply.error?.code).toBe(-32000);
      expect(reply.error?.data).toMatchObject({ code: 'DG_ENV_CONFIG' });
      expect(reply.error?.message).toMatch(expected);
      expect(reply.error?.message).not.toMatch(/docker|image/i);
      expectNoStack(reply);
    }
    // A refused reset leaves the running episode alone.
    await stillServes();
  });
});
