import type { RepoEnv } from '@debug-gym/core';
import { availableBackends, createTestEnv } from '@debug-gym/test-utils';
import { afterEach, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
// The terminal's /proc reader, imported from source: the suite does not depend on its internals otherwise.
import { procStat } from '../../../packages/terminal/src/process-identity.js';

/**
 * The local backend shares one warm zygote (and its helper) among the episodes of a process that
 * have the same interpreter and environment (packages/terminal/src/local-zygote.ts). The agent of one
 * episode runs as the same user, so it can stop, kill or re-limit those processes; another episode's
 * score must not move.
 */
const backends = (await availableBackends()).filter((backend) => backend.name === 'local');

const TASK = {
  'app.py': 'def add(a, b):\n    return a - b\n',
  'test_app.py': 'from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_truth():\n    assert True\n',
};
const FIX = 'def add(a, b):\n    return a + b\n';
const BUG = TASK['app.py'];

function ppidOf(pid: number): number {
  const stat = procStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return stat.ppid;
}

/** Exited: gone, or a zombie not reaped yet. */
const gone = (pid: number): boolean => [undefined, 'Z'].includes(procStat(pid)?.state);

describe.each(backends)('the shared zygote on $name', (backend) => {
  const envs: RepoEnv[] = [];
  afterEach(async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  });

  async function episode(): Promise<RepoEnv> {
    const env = createTestEnv(backend, { files: TASK });
    envs.push(env);
    expect(await env.reset()).toMatchObject({ score: 1, maxScore: 2 });
    return env;
  }

  /** The episode's fork server came from the zygote: the zygote's pid. */
  function zygoteOf(env: RepoEnv): number | undefined {
    const origin = (env.terminal as { forkServerOrigin?: { zygote?: number } }).forkServerOrigin;
    return origin?.zygote;
  }

  attack("another episode's agent stops, kills or re-limits the zygote and its helper: this episode still scores what it earns", backend.name, async () => {
    // The second episode of a kind starts the zygote; later ones get their server from it.
    let victim = await episode();
    for (let attempt = 0; attempt < 4 && zygoteOf(victim) === undefined; attempt++) {
      await (victim.terminal as { zygoteReady?: () => Promise<boolean> }).zygoteReady?.();
      victim = await episode();
    }
    const zygote = zygoteOf(victim) as number;
    expect(zygote).toBeGreaterThan(0);
    const agent = await episode();
    const helper = ppidOf(zygote);
    const tampering = [
      `kill -STOP ${zygote}`,
      `python3 -c 'import resource; resource.prlimit(${helper}, resource.RLIMIT_NOFILE, (64, 64))'`,
      `kill -STOP ${helper}`,
      `kill -KILL ${zygote} ${helper}`,
    ];
    for (const command of tampering) {
      await agent.terminal.run(`${command} 2>/dev/null; true`, { timeoutMs: 30_000 });
      if (command.includes(`${helper}`)) for (let wait = 0; wait < 100 && !gone(helper); wait++) await new Promise((resolve) => setTimeout(resolve, 50));
      await victim.terminal.writeFile('app.py', FIX);
      expect(await victim.evaluate(), command).toMatchObject({ score: 2, maxScore: 2, success: true });
      await victim.terminal.writeFile('app.py', BUG);
      expect(await victim.evaluate(), command).toMatchObject({ score: 1, maxScore: 2, success: false });
    }
  }, 120_000);
});
