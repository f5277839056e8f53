import { availableBackends, testdir } from '@debug-gym/test-utils';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
import { ServeClient, terminalParams } from '../src/serve-client.js';

const backends = await availableBackends();
const MiB = 1024 * 1024;
/**
 * Generous: the server idles near 100 MB, grep's RE2 worker thread (its own V8 heap) and the batches
 * in flight add up to ~390 MB measured here; reading a 400 MB file whole takes it past 1 GB.
 */
const RSS_BOUND = 512 * MiB;
// Every control sequence the docs promise the model never sees: ESC c, ESC 7, ESC ( 0, 8-bit CSI, OSC, SGR.
const CONTROL_PRINTF = String.raw`\033c\0337\033(0\302\2332J\033]0;t\007\033[31m`;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe.each(backends)('huge inputs on $name', (backend) => {
  let server: ServeClient;
  const repo = testdir({
    'app.py': 'def add(a, b):\n    return a - b\n',
    'test_app.py': `import sys\n\n\ndef test_add():\n    sys.stdout.write("\\x1bc\\x1b7\\x1b(0\\x9b2J\\x1b]0;t\\x07\\x1b[31mloud")\n    assert 1 == 1\n`,
  });

  beforeAll(async () => {
    server = new ServeClient();
    const reset = await server.call('reset', {
      path: repo,
      terminal: terminalParams(backend.name),
      tools: ['bash', 'view', 'grep', 'listdir', 'eval', 'pdb'],
      entrypoint: 'python -m pytest -sq test_app.py',
    });
    expect(reset.error).toBeUndefined();
  }, 300_000);
  afterAll(() => server.end());

  attack('a 400 MB file the agent wrote, viewed and grepped', backend.name, async () => {
    expect(await server.step('bash', { command: 'yes abcdefghijklmnopqrstuvwxyz | head -c 419430400 > big.txt && echo made', timeout: 300 })).toContain('made');
    const viewed = await server.step('view', { path: 'big.txt' });
    expect(viewed).toMatch(/too large to (read|view)/);
    expect(viewed).toMatch(/grep/);
    const grepped = await server.step('grep', { pattern: 'zzz' });
    expect(grepped).toMatch(/No matches found/);
    expect(grepped).toMatch(/big\.txt/);
    expect(grepped).toMatch(/larger than/);
    expect(server.peakRssBytes()).toBeLessThan(RSS_BOUND);
    await server.step('bash', { command: 'rm big.txt' });
  }, 600_000);

  attack('grep over 400 hard links of a 3 MiB file', backend.name, async () => {
    const made = await server.step('bash', {
      command: 'mkdir links && yes needle | head -c 3145728 > links/f0 && for i in $(seq 399); do ln links/f0 links/f$i; done && echo made',
      timeout: 300,
    });
    expect(made).toContain('made');
    const grepped = await server.step('grep', { pattern: 'nothing-matches-this', path: 'links' });
    expect(grepped).toMatch(/No matches found/);
    // Which budget ends it (bytes, or the 30 s deadline on a loaded machine) may vary; that one does is the point.
    expect(grepped).toMatch(/The search stopped after (reading [\d.]+ MiB \(the limit is 128\.0 MiB\)|30 seconds)/);
    expect(server.peakRssBytes()).toBeLessThan(RSS_BOUND);
    await server.step('bash', { command: 'rm -rf links' });
  }, 600_000);

  attack('200 000 files in the repository root', backend.name, async () => {
    expect(await server.step('bash', { command: 'seq -f f%06g.py 200000 | xargs touch && echo made', timeout: 300 })).toContain('made');
    const reply = await server.call('step', { name: 'listdir', arguments: {} });
    expect(reply.error).toBeUndefined();
    const info = reply.result as { dirTree: string; stepObservation: { observation: string } };
    for (const tree of [info.dirTree, info.stepObservation.observation]) {
      expect(tree.length).toBeLessThan(64 * 1024);
      expect(tree).toMatch(/more entries not shown/);
    }
    expect(info.dirTree).not.toMatch(/unavailable/);
    // The same server still answers, and a later step sees the same bounded tree.
    const again = await server.call('step', { name: 'view', arguments: { path: 'app.py' } });
    expect((again.result as { dirTree: string }).dirTree.length).toBeLessThan(64 * 1024);
    await server.step('bash', { command: 'find . -maxdepth 1 -name "f*.py" -delete && echo gone' });
  }, 600_000);

  attack('grep over a 1500-deep directory chain', backend.name, async () => {
    // In one process: 1500 `mkdir` processes in ever deeper folders take minutes on overlay file systems.
    const chain = 'import os; [(os.mkdir("d"), os.chdir("d")) for _ in range(1500)]; open("x.py", "w").write("needle\\n")';
    const made = await server.step('bash', { command: `python3 -c '${chain}' && echo made`, timeout: 300 });
    expect(made).toContain('made');
    const grepped = await server.step('grep', { pattern: 'needle' });
    expect(grepped).toMatch(/deeper than \d+ levels/);
    const listed = await server.step('listdir', { path: 'd', depth: 20 });
    expect(listed.split('\n').length).toBeLessThanOrEqual(21);
    await server.step('bash', { command: 'rm -rf d' });
  }, 600_000);

  attack('terminal control sequences in bash, pdb and eval output', backend.name, async () => {
    const bash = await server.step('bash', { command: `printf '${CONTROL_PRINTF}bash-out\\n'` });
    expect(bash).toContain('bash-out');
    const pdb = await server.step('pdb', { command: `print("\\x1bc\\x1b7\\x1b(0\\x9b2J\\x1b]0;t\\x07\\x1b[31mpdb-out")` });
    expect(pdb).toContain('pdb-out');
    const evaluated = await server.step('eval');
    expect(evaluated).toContain('loud');
    for (const observation of [bash, pdb, evaluated]) expect(observation).not.toMatch(CONTROLS);
  });
});
