import { describe, expect, test } from 'vitest';
import { runConfigFile } from './helpers/fixtures.js';
import { spawnCliInPty } from './helpers/cli.js';

function config(extra: string[] = []): string {
  return runConfigFile({ maxSteps: 6, extra }).file;
}

describe('interactive runs in a real terminal', () => {
  test('human mode: the person types tool calls, a typo is explained and asked again, the fix resolves the task', async () => {
    const session = spawnCliInPty(['run', config(), '--agent', 'debug_agent', '-p', 'debug_agent.llm_name=human']);
    await session.waitFor(/Test output of the current code \(1\/2 tests pass\)/);
    await session.waitFor(/Tools: view, eval, rewrite/);
    await session.waitFor(/debug-gym> /);
    session.write('evl\r');
    await session.waitFor(/Unknown tool 'evl'\. Did you mean 'eval'\?/);
    await session.waitFor(/debug-gym> /);
    session.write('rewrite path=app.py start=2 new_code="    return a + b"\r');
    await session.waitFor(/observation \(rewrite\)[\s\S]*has been updated successfully/);
    await session.waitFor(/debug-gym> /);
    session.write('eval\r');
    await session.waitFor(/2 passed/);
    await session.waitFor(/│ yes\s+│ 2\/2/);
    await session.waitFor(/Resolved 1\/1 \(100\.0%\)/);
    expect(await session.exited).toBe(0);
  });

  test('--debug pauses after each step until c is typed; another key asks again', async () => {
    const session = spawnCliInPty(['run', config(['  replay: script.json']), '--agent', 'debug_agent', '--debug']);
    await session.waitFor(/== \S+ step 1: rewrite \{"path":"app\.py","start":2,"new_code":" {4}return a \+ b"\} ==/);
    await session.waitFor(/Paused\. Type c and Enter to continue, q and Enter to stop: /);
    session.write('x\r');
    await session.waitFor(/Unknown answer 'x'\. Paused\./);
    session.write('c\r');
    await session.waitFor(/== \S+ step 2: eval \{\} ==[\s\S]*2 passed/);
    await session.waitFor(/Paused\./);
    expect(session.output()).not.toContain('Resolved 1/1');
    session.write('c\r');
    await session.waitFor(/Resolved 1\/1 \(100\.0%\)/);
    expect(await session.exited).toBe(0);
  });

  test('--debug: q stops the run, which writes partial results and exits 130', async () => {
    const session = spawnCliInPty(['run', config(['  replay: script.json']), '--agent', 'debug_agent', '--debug']);
    await session.waitFor(/Paused\./);
    session.write('q\r');
    await session.waitFor(/aborted/);
    await session.waitFor(/Stopped: partial results written to .*results\.json/);
    expect(await session.exited).toBe(130);
  });
});
