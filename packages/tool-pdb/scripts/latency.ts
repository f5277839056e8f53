/**
 * Latency of the pdb tool on this machine, per backend, through a real RepoEnv:
 *
 *   node <vite-node> --config packages/tool-pdb/vitest.config.ts packages/tool-pdb/scripts/latency.ts [local,bubblewrap,docker]
 *
 * Reports a pdb command (median of 50 `p 1+1` steps), a rewrite step including pdb's restart with
 * breakpoint restore (the first of the episode, with no standby yet; with the warm standby; back to
 * back when the standby is still starting), a cold
 * session start (new entrypoint), and `c` to a breakpoint.
 */
import { availableBackends } from '@debug-gym/test-utils';
import { pdbEnv } from '../test/support/pdb-env.js';

const FILES = {
  'calc.py': 'def add(a, b):\n    total = a + b\n    return total\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n',
};

function stats(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const pick = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${pick(0.5).toFixed(1)} ms  p90 ${pick(0.9).toFixed(1)} ms  min ${sorted[0]!.toFixed(1)} ms  (n=${samples.length})`;
}

const idle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<void> {
  if (process.argv[2]) process.env.DEBUG_GYM_TEST_BACKENDS = process.argv[2];
  for (const backend of await availableBackends()) {
    const session = await pdbEnv(backend, { files: FILES });
    const { pdb, step } = session;
    await idle(2000);
    const commands: number[] = [];
    for (let index = 0; index < 50; index += 1) commands.push(await timed(() => pdb('p 1+1')));
    await pdb('b calc.py:3');
    // The first restart of the episode: no standby yet (default policy), a new pdb process starts.
    const firstRewrite = await timed(() => step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: '    total = a + b  # first' }));
    const rewrites: number[] = [];
    for (let index = 0; index < 8; index += 1) {
      await idle(1500);
      rewrites.push(await timed(() => step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: `    total = a + b + ${index} - ${index}` })));
    }
    const backToBack: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      backToBack.push(await timed(() => step('rewrite_stub', { path: 'calc.py', start: 2, end: 2, new_code: '    total = a + b' })));
    }
    await idle(1500);
    const continues: number[] = [];
    for (let index = 0; index < 5; index += 1) {
      continues.push(await timed(() => pdb('c')));
      await pdb('c'); // to the end: pdb restarts the program
    }
    const starts: number[] = [];
    for (let index = 0; index < 6; index += 1) {
      starts.push(await timed(() => pdb('p 1', index % 2 ? 'python -m pdb -m pytest -sq .' : 'python -m pdb -m pytest -sv .')));
    }
    await session.env.close();
    console.log(`\n${backend.name}`);
    console.log(`  pdb command (p 1+1)                 ${stats(commands)}`);
    console.log(`  first rewrite (no standby yet)      ${firstRewrite.toFixed(1)} ms`);
    console.log(`  rewrite + restart (standby ready)   ${stats(rewrites)}`);
    console.log(`  rewrite + restart (back to back)    ${stats(backToBack)}`);
    console.log(`  c to a breakpoint                   ${stats(continues)}`);
    console.log(`  cold session start (new entrypoint) ${stats(starts)}`);
  }
}

await main();
