import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { testdir } from '@debug-gym/test-utils';
import view from '@debug-gym/tool-view';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import type { ToolSpec } from '@debug-gym/core';
import { checkTerminalParams } from '../src/params/host-policy.js';
import { evilPlugin } from './helpers/evil-plugin.js';
import { buggyRepo, local, TestServer } from './helpers/server.js';

/** This package's folder: its node_modules hold @debug-gym/tool-listdir (a dev dependency), an installed plugin. */
const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));

function toolNames(body: { observation: { tools: Array<{ function: { name: string } }> } }): string[] {
  return body.observation.tools.map((tool) => tool.function.name);
}

describe('a client names plugins, never paths (issue 26 §4)', () => {
  let server: TestServer;
  const evil = evilPlugin();
  beforeAll(async () => {
    // Only `view` is the server's own; `listdir` is found by the loader as an installed package.
    server = await TestServer.start({ tools: { view } as Record<string, ToolSpec>, pluginsFrom: packageDir, idleTtlSeconds: 0 });
  });
  afterAll(() => server.close());

  test('a .mjs path, a file: URL, a relative path, ../ and a package specifier are refused (403 DG_PLUGIN_NOT_ALLOWED) and never imported', async () => {
    const fromCwd = relative(process.cwd(), evil.file);
    const specifiers = [evil.file, pathToFileURL(evil.file).href, fromCwd.startsWith('.') ? fromCwd : `./${fromCwd}`, join(evil.dir, 'sub', '..', 'evil-tool.mjs'), `../${fromCwd}`, '@evil/debug-gym-tool-x', 'evil.mjs'];
    for (const name of specifiers) {
      const refused = await server.post('/reset', { path: buggyRepo(), terminal: local, tools: ['view', name] });
      expect(refused, name).toMatchObject({ status: 403, body: { error: { code: 'DG_PLUGIN_NOT_ALLOWED', kind: 'tool', name, available: ['view'] } } });
      expect(refused.body.error.message).toContain(`--allow-plugin ${name}`);
      // As `[name, options]` too.
      expect((await server.post('/reset', { path: buggyRepo(), terminal: local, tools: [[name, {}]] })).status).toBe(403);
    }
    for (const benchmark of [evil.file, pathToFileURL(evil.file).href, './bench', '../bench', '@evil/bench']) {
      const refused = await server.post('/reset', { benchmark, task: 'x', terminal: local });
      expect(refused, benchmark).toMatchObject({ status: 403, body: { error: { code: 'DG_PLUGIN_NOT_ALLOWED', kind: 'benchmark', name: benchmark } } });
    }
    expect(evil.ran()).toBe(false);
    // A refused reset holds no slot.
    expect((await server.request('GET', '/capacity')).body.active_sessions).toBe(0);
  });

  test('a bare name: the server\'s own tool, or an installed plugin package; a bare name that is not installed is refused with the tools there are', async () => {
    const accepted = await server.post('/reset', { path: buggyRepo(), terminal: local, tools: ['view', 'listdir'], eval_on_reset: false });
    expect(accepted.status).toBe(200);
    expect(toolNames(accepted.body)).toEqual(['view', 'listdir']);
    await server.post('/close', { session_id: accepted.body.session_id });
    const missing = await server.post('/reset', { path: buggyRepo(), terminal: local, tools: ['no-such-tool'] });
    expect(missing).toMatchObject({ status: 400, body: { error: { code: 'DG_PLUGIN_LOAD_FAILED', message: expect.stringContaining('no tool of that name is installed on this server. Its tools: view') } } });
    expect(missing.body.error.message).not.toContain('path');
  });

  test('over WebSocket: the same refusal, and the connection goes on', async () => {
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`);
    const replies: Array<{ type: string; data: Record<string, unknown> }> = [];
    const next = (): Promise<{ type: string; data: Record<string, unknown> }> =>
      new Promise((resolve) => {
        const check = (): void => {
          const reply = replies.shift();
          if (reply) resolve(reply);
          else setTimeout(check, 10);
        };
        check();
      });
    socket.on('message', (data) => replies.push(JSON.parse(String(data)) as { type: string; data: Record<string, unknown> }));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'reset', data: { path: buggyRepo(), terminal: local, tools: [pathToFileURL(evil.file).href] } }));
    expect(await next()).toMatchObject({ type: 'error', data: { error_code: 'DG_PLUGIN_NOT_ALLOWED', status: 403 } });
    socket.send(JSON.stringify({ type: 'reset', data: { path: buggyRepo(), terminal: local, tools: ['view'], eval_on_reset: false } }));
    expect(await next()).toMatchObject({ type: 'observation' });
    socket.close();
    expect(evil.ran()).toBe(false);
  });

  test('the operator allows one specifier (--allow-plugin), or every path (--allow-plugin-paths)', async () => {
    const allowOne = await TestServer.start({ tools: { view } as Record<string, ToolSpec>, plugins: { allow: [evil.file] } });
    try {
      const other = evilPlugin();
      expect((await allowOne.post('/reset', { path: buggyRepo(), terminal: local, tools: [other.file] })).status).toBe(403);
      expect(other.ran()).toBe(false);
      const allowed = await allowOne.post('/reset', { path: buggyRepo(), terminal: local, tools: ['view', evil.file], eval_on_reset: false });
      expect(allowed.status).toBe(200);
      expect(toolNames(allowed.body)).toEqual(['view', 'evil']);
      expect(evil.ran()).toBe(true);
    } finally {
      await allowOne.close();
    }
    const allowAll = await TestServer.start({ tools: { view } as Record<string, ToolSpec>, plugins: { allowPaths: true } });
    try {
      const other = evilPlugin();
      expect((await allowAll.post('/reset', { path: buggyRepo(), terminal: local, tools: [pathToFileURL(other.file).href], eval_on_reset: false })).status).toBe(200);
      expect(other.ran()).toBe(true);
    } finally {
      await allowAll.close();
    }
  });
});

describe('what else of a reset acts on the server\'s host', () => {
  let server: TestServer;
  let root: string;
  let outside: string;
  beforeAll(async () => {
    root = testdir({});
    outside = buggyRepo();
    server = await TestServer.start({ repoRoots: [root], idleTtlSeconds: 0 });
  });
  afterAll(() => server.close());

  test('programs the server runs itself: terminal.bwrap_path, a host interpreter by path; the host network', async () => {
    const evil = evilPlugin();
    const inRoot = join(root, 'repo-a');
    mkdirSync(inRoot);
    symlinkSync(join(outside, 'app.py'), join(inRoot, 'app.py'));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'bubblewrap', bwrap_path: evil.file }, 'terminal.bwrap_path'],
      [{ type: 'bubblewrap', python: evil.file }, 'terminal.python'],
      [{ type: 'auto', python: '../python3' }, 'terminal.python'],
      [{ type: 'local', python: 'sh' }, 'terminal.python'],
      [{ type: 'docker', network: 'host' }, 'terminal.network'],
      [{ type: 'docker', network: 'container:other-session' }, 'terminal.network'],
    ];
    for (const [terminal, param] of cases) {
      const refused = await server.post('/reset', { path: inRoot, terminal, tools: ['view'] });
      expect(refused, JSON.stringify(terminal)).toMatchObject({ status: 403, body: { error: { code: 'DG_PARAM_NOT_ALLOWED', param } } });
    }
    expect(evil.ran()).toBe(false);
    // A Docker sandbox's interpreter runs inside its container: any is accepted there; on the host only python names and the server's own.
    expect(() => checkTerminalParams({ type: 'docker', python: '/opt/venv/bin/python' })).not.toThrow();
    for (const python of ['python', 'python3', 'python3.12']) expect(() => checkTerminalParams({ type: 'bubblewrap', python })).not.toThrow();
  });

  test('--repo-root: repositories, data paths and read-only paths inside it (symlinks resolved); benchmark_options only when allowed', async () => {
    const inside = join(root, 'repo-b');
    mkdirSync(inside);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(inside, 'app.py'), 'x = 1\n');
    const ok = await server.post('/reset', { path: inside, terminal: local, tools: ['view'], eval_on_reset: false });
    expect(ok.status).toBe(200);
    await server.post('/close', { session_id: ok.body.session_id });
    symlinkSync(outside, join(root, 'link-out'));
    for (const [body, param] of [
      [{ path: outside }, 'path'],
      [{ path: join(root, '..', relative(dirname(root), outside)) }, 'path'],
      [{ path: join(root, 'link-out') }, 'path'],
      [{ path: inside, terminal: { ...local, read_only_paths: ['/etc'] } }, 'terminal.read_only_paths'],
    ] as const) {
      const refused = await server.post('/reset', { terminal: local, tools: ['view'], ...body });
      expect(refused, JSON.stringify(body)).toMatchObject({ status: 403, body: { error: { code: 'DG_PARAM_NOT_ALLOWED', param, message: expect.stringContaining('--repo-root') } } });
    }
    const options = await server.post('/reset', { benchmark: 'mini-nightmare', task: 'config', benchmark_options: { url: 'file:///etc/passwd' } });
    expect(options).toMatchObject({ status: 403, body: { error: { code: 'DG_PARAM_NOT_ALLOWED', param: 'benchmark_options', message: expect.stringContaining('--allow-benchmark-options') } } });
    const data = await server.post('/reset', { benchmark: 'mini-nightmare', task: 'config', data_path: outside });
    expect(data).toMatchObject({ status: 403, body: { error: { code: 'DG_PARAM_NOT_ALLOWED', param: 'data_path' } } });
  });
});

describe("--repo-root and the rows of a client's data_path", () => {
  test('the repository a row names (repo_path) lies inside the roots or the benchmark cache, like a path the client named', async () => {
    const root = testdir({ 'repo-c/app.py': 'x = 1\n', 'data.jsonl': '{}\n' });
    const cache = testdir({ 'cached-repo/app.py': 'x = 1\n' });
    const outside = buggyRepo();
    const repositories: Record<string, string> = { escape: outside, inside: join(root, 'repo-c'), cached: join(cache, 'cached-repo') };
    // Stands in for a benchmark whose rows name their repository (SWE-smith's, R2E-Gym's repo_path).
    const server = await TestServer.start({
      repoRoots: [root],
      taskRoots: [cache],
      benchmarkNames: ['rows'],
      idleTtlSeconds: 0,
      resolveTask: async ({ task }) => ({ task: { id: task, benchmark: 'rows', path: repositories[task] as string, instructions: 'Look around.', entrypoint: 'python -m pytest -q' } }),
    });
    try {
      const dataPath = join(root, 'data.jsonl');
      const reset = (task: string, withData = true): ReturnType<TestServer['post']> =>
        server.post('/reset', { benchmark: 'rows', task, ...(withData ? { data_path: dataPath } : {}), terminal: local, tools: ['view'], eval_on_reset: false });
      const refused = await reset('escape');
      expect(refused).toMatchObject({ status: 403, body: { error: { code: 'DG_PARAM_NOT_ALLOWED', param: 'data_path', message: expect.stringContaining(outside) } } });
      for (const task of ['inside', 'cached']) {
        const ok = await reset(task);
        expect(ok.status, JSON.stringify(ok.body)).toBe(200);
        await server.post('/close', { session_id: ok.body.session_id });
      }
      // The benchmark's own data (no data_path from the client) is the operator's: its repositories are not limited.
      const own = await reset('escape', false);
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      await server.post('/close', { session_id: own.body.session_id });
    } finally {
      await server.close();
    }
  });
});
