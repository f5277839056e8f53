import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { LLM_CONFIG_TEMPLATE } from '@debug-gym/agents';
import { availableBackends, testPython, testdir } from '@debug-gym/test-utils';
import { describe, expect, test } from 'vitest';
import { runDemo, runGc, runInitLlmConfig } from '../src/index.js';
import { runCli } from './helpers/cli.js';

describe('debug-gym demo', () => {
  test('the debug_agent fixes the demo repository, driven by the scripted replay model, every step labelled SCRIPTED', async () => {
    let output = '';
    const result = await runDemo({ python: testPython, write: (text) => (output += text) });
    expect(result).toMatchObject({ success: true, steps: 7, rewrites: 1, score: 3, maxScore: 3, agent: 'debug_agent', model: 'scripted-demo' });
    expect(output).toContain('debug-gym demo: the debug_agent driven by a SCRIPTED model: it replays 7 recorded tool calls. No LLM, no API key.');
    expect(output).toMatch(/== reset ==\n {2}│ \[eval\][\s\S]*1 passed/);
    // pytest's FAILED lines stay behind the bar, so log scanners do not take them for the run's own failures.
    expect(output).toContain('  │ FAILED test_shopping.py::test_total_without_discount');
    expect(output).not.toMatch(/^FAILED/m);
    expect(output.match(/== step \d\/7 \[SCRIPTED, no LLM\]: /g)).toHaveLength(7);
    expect(output).toContain('== step 3/7 [SCRIPTED, no LLM]: pdb {"command":"b shopping.py:13"} ==');
    expect(output).toContain('result: score 3/3, resolved: yes, steps: 7, rewrites: 1');
  });

  test('a session that does not fix the repository fails the demo; a session without a repository is refused', async () => {
    const dir = testdir({ 'bare.json': JSON.stringify({ steps: [{ name: 'eval', arguments: {} }] }) });
    const demoRepo = new URL('../demo/repo', import.meta.url).pathname;
    writeFileSync(join(dir, 'short.json'), JSON.stringify({ description: 'just looks', repository: demoRepo, entrypoint: 'python -m pytest -sq .', steps: [{ name: 'eval', arguments: {} }] }));
    await expect(runDemo({ session: join(dir, 'short.json'), python: testPython, write: () => {} })).rejects.toThrow('The scripted session did not resolve the task.');
    await expect(runDemo({ session: join(dir, 'bare.json'), write: () => {} })).rejects.toThrow('must name the `repository`');
  });
});

describe('debug-gym init-llm-config', () => {
  test('writes the commented template into DIR, refuses to overwrite it, and replaces it with --force', async () => {
    const dir = testdir({});
    let said = '';
    const path = await runInitLlmConfig(dir, { write: (text) => (said += text) });
    expect(path).toBe(join(dir, 'llm.yaml'));
    expect(readFileSync(path, 'utf8')).toBe(LLM_CONFIG_TEMPLATE);
    expect(said).toContain(`Wrote ${path}.`);
    expect(said).toContain(`llm_config_file_path: ${path}`);
    writeFileSync(path, 'mine: { model: x }\n');
    await expect(runInitLlmConfig(dir, { write: () => {} })).rejects.toThrow(/already exists; not overwriting it\. Use --force/);
    expect(readFileSync(path, 'utf8')).toBe('mine: { model: x }\n');
    await runInitLlmConfig(dir, { force: true, write: () => {} });
    expect(readFileSync(path, 'utf8')).toBe(LLM_CONFIG_TEMPLATE);
  });

  test('without DIR the command writes ~/.config/debug_gym/llm.yaml and exits 1 with a message the second time', async () => {
    const home = testdir({});
    const first = await runCli(['init-llm-config'], { env: { HOME: home } });
    expect(first.code).toBe(0);
    expect(existsSync(join(home, '.config', 'debug_gym', 'llm.yaml'))).toBe(true);
    const second = await runCli(['init-llm-config'], { env: { HOME: home } });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^debug-gym: .*llm\.yaml already exists; not overwriting it\. Use --force/);
    expect((await runCli(['init-llm-config', '-f'], { env: { HOME: home } })).code).toBe(0);
  });
});

describe('debug-gym gc', async () => {
  const docker = (await availableBackends()).some((backend) => backend.name === 'docker');

  test('lists (dry run), then reclaims, what a dead run leased, in a table; live runs are left alone', async () => {
    const leaseDir = mkdtempSync(join(tmpdir(), 'gc-command-'));
    const leftover = mkdtempSync(join(tmpdir(), 'debug-gym-'));
    const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
    const lease = { version: 1, id: 'x', backend: 'bubblewrap', owner: { pid: dead, host: hostname() }, groups: [], dirs: [leftover], cgroups: [] };
    writeFileSync(join(leaseDir, 'x.json'), JSON.stringify(lease));
    writeFileSync(join(leaseDir, 'live.json'), JSON.stringify({ ...lease, id: 'live', owner: { pid: process.pid, host: hostname() }, dirs: [] }));
    let said = '';
    expect(await runGc({ leaseDir, containers: false, dryRun: true }, (text) => (said += text))).toBe(2);
    expect(said).toMatch(/kind +│ what +│ backend +│ owner pid/);
    expect(said).toMatch(new RegExp(`│ dir +│ ${leftover} +│ bubblewrap +│ ${dead} +│`));
    expect(said).toContain(`Would reclaim 2 items left behind by dead debug-gym runs. 1 sandbox of running debug-gym processes left alone.\n`);
    expect(existsSync(leftover)).toBe(true);
    said = '';
    expect(await runGc({ leaseDir, containers: false }, (text) => (said += text))).toBe(2);
    expect(said).toContain('Reclaimed 2 items');
    expect(existsSync(leftover)).toBe(false);
    said = '';
    expect(await runGc({ leaseDir, containers: false }, (text) => (said += text))).toBe(0);
    expect(said).toBe('Nothing left behind by dead debug-gym runs. 1 sandbox of running debug-gym processes left alone.\n');
  });

  test.skipIf(!docker)('with Docker, removes no live container and reports what it reclaimed', async () => {
    let said = '';
    const removed = await runGc({ leaseDir: mkdtempSync(join(tmpdir(), 'gc-command-')) }, (text) => (said += text));
    expect(removed).toBeGreaterThanOrEqual(0);
    expect(said).toMatch(removed === 0 ? /^Nothing left behind/ : /Reclaimed \d+ items? left behind/);
  });
  test('--namespace and --context without --kubernetes are refused', async () => {
    await expect(runGc({ namespace: 'rl', containers: false })).rejects.toThrow('--namespace and --context go with --kubernetes.');
  });
  if (!docker) console.warn('\n*** SKIPPING the Docker gc test: Docker is unavailable (see the backend warning above)\n');
});

describe('the bin', () => {
  test('errors in the config exit 1 with the message; usage errors exit 2', async () => {
    const dir = testdir({ 'c.yaml': 'base:\n  max_step: 3\n' });
    const bad = await runCli(['run', join(dir, 'c.yaml'), '--agent', 'debug_agent']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown key `base.max_step`; did you mean `base.max_steps`?');
    const usage = await runCli(['run']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'config'");
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Commands:[\s\S]*run[\s\S]*bench[\s\S]*replay[\s\S]*serve[\s\S]*init-llm-config[\s\S]*demo[\s\S]*gc/);
  });
});
