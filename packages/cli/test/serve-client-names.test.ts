import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { testPython, testdir } from '@debug-gym/test-utils';
import { afterEach, describe, expect, test } from 'vitest';
import { createProgram } from '../src/index.js';
import { resolveServerToken } from '../src/serve/server-token.js';
import { buggyRepo } from './helpers/fixtures.js';
import { binPath, repoRoot } from './helpers/cli.js';

const local = { type: 'local', python: testPython };

/** A tool plugin file that, once imported, writes a marker: the issue 26 §4 attack. */
function evilPlugin(): { file: string; ran: () => boolean } {
  const dir = testdir({});
  const marker = join(dir, 'RAN-ON-THE-HOST');
  const file = join(dir, 'evil-tool.mjs');
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n` +
      "export default { specificationVersion: 'tool-plugin-v1', name: 'evil', description: 'evil', parameters: { type: 'object', properties: {} }, create: () => ({ run: async () => 'ran' }) };\n",
  );
  return { file, ran: () => existsSync(marker) };
}

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** The real `debug-gym serve ARGS` (stdio JSON-RPC), one message per line each way. */
function serveStdio(args: string[] = []): { call: (method: string, params: unknown) => Promise<Record<string, unknown>>; stderr: () => string; end: () => Promise<void> } {
  const child = spawn(process.execPath, [binPath, 'serve', ...args], { cwd: repoRoot, stdio: 'pipe' });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waiting: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => waiting.shift()?.(line));
  let id = 0;
  return {
    call: (method, params) =>
      new Promise((resolve) => {
        waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
      }),
    stderr: () => stderr,
    end: () =>
      new Promise((resolve) => {
        child.once('close', () => resolve());
        child.stdin.end();
      }),
  };
}

describe('debug-gym serve (stdio): a client names plugins, never paths (issue 26 §4)', () => {
  test('paths, file: URLs, relative and ../ paths and package specifiers are refused and never imported; installed names load', async () => {
    const evil = evilPlugin();
    const server = serveStdio();
    const fromRepo = relative(repoRoot, evil.file);
    for (const name of [evil.file, pathToFileURL(evil.file).href, `./${fromRepo}`, `../${relative(join(repoRoot, '..'), evil.file)}`, '@evil/debug-gym-tool-x']) {
      const reply = await server.call('reset', { path: buggyRepo(), terminal: local, tools: ['view', name] });
      expect(reply, name).toMatchObject({ error: { data: { code: 'DG_PLUGIN_NOT_ALLOWED' }, message: expect.stringContaining(`--allow-plugin ${name}`) } });
    }
    expect(await server.call('reset', { benchmark: evil.file, task: 'x' })).toMatchObject({ error: { data: { code: 'DG_PLUGIN_NOT_ALLOWED' } } });
    expect(await server.call('reset', { path: buggyRepo(), terminal: { type: 'bubblewrap', bwrapPath: evil.file } })).toMatchObject({ error: { data: { code: 'DG_PARAM_NOT_ALLOWED' } } });
    expect(evil.ran()).toBe(false);
    // Bundled by name, and an alias.
    const ok = await server.call('reset', { path: buggyRepo(), terminal: local, tools: ['view', 'grep', 'edit'], evalOnReset: false });
    expect((ok.result as { tools: Array<{ function: { name: string } }> }).tools.map((tool) => tool.function.name)).toEqual(['view', 'grep', 'edit']);
    await server.end();
  });

  test('--allow-plugin FILE allows that one; --allow-plugin-paths allows any, with a loud warning', async () => {
    const evil = evilPlugin();
    const other = evilPlugin();
    const one = serveStdio(['--allow-plugin', evil.file]);
    expect(await one.call('reset', { path: buggyRepo(), terminal: local, tools: [other.file] })).toMatchObject({ error: { data: { code: 'DG_PLUGIN_NOT_ALLOWED' } } });
    expect(await one.call('reset', { path: buggyRepo(), terminal: local, tools: [evil.file], evalOnReset: false })).toHaveProperty('result');
    expect(evil.ran()).toBe(true);
    expect(other.ran()).toBe(false);
    await one.end();
    const any = serveStdio(['--allow-plugin-paths']);
    expect(await any.call('reset', { path: buggyRepo(), terminal: local, tools: [pathToFileURL(other.file).href], evalOnReset: false })).toHaveProperty('result');
    expect(other.ran()).toBe(true);
    expect(any.stderr()).toContain('WARNING: --allow-plugin-paths');
    await any.end();
  });
});

describe('the operator\'s flags', () => {
  test('--allow-plugin and --repo-root repeat, and apply to plain serve as to serve --http; the budget flags only with --http', async () => {
    const seen: unknown[] = [];
    const program = createProgram({ serve: async (options) => void seen.push(options) });
    await program.parseAsync(['node', 'debug-gym', 'serve', '--allow-plugin', 'a', '--allow-plugin', './b.mjs', '--repo-root', '/srv/repos', '--allow-plugin-paths', '--allow-benchmark-options']);
    expect(seen[0]).toEqual({ allowPlugin: ['a', './b.mjs'], repoRoot: ['/srv/repos'], allowPluginPaths: true, allowBenchmarkOptions: true });
    await createProgram({ serve: async (options) => void seen.push(options) }).parseAsync(['node', 'debug-gym', 'serve', '--http', '--token-file', '/t', '--memory-budget', '20g', '--pids-budget', '9000']);
    expect(seen[1]).toEqual({ http: true, tokenFile: '/t', memoryBudget: '20g', pidsBudget: 9000 });
    await expect(createProgram().parseAsync(['node', 'debug-gym', 'serve', '--pids-budget', '10'])).rejects.toMatchObject({ message: expect.stringContaining('--pids-budget only apply with --http') });
  });
});

describe('debug-gym mcp: an MCP client can only call the tools the operator served', () => {
  test('a tool named by a path or file: URL is not found and never imported', async () => {
    const evil = evilPlugin();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [binPath, 'mcp', '--path', 'packages/cli/demo/repo', '--terminal', 'local', '--tools', 'view'],
      cwd: repoRoot,
      env: { ...(process.env as Record<string, string>), DEBUG_GYM_PYTHON: testPython },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'debug-gym-test', version: '0.0.0' });
    await client.connect(transport);
    for (const name of [evil.file, pathToFileURL(evil.file).href, '../evil-tool.mjs', '@evil/debug-gym-tool-x']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]?.text).toContain('not found among available tools: view');
    }
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['view']);
    expect(evil.ran()).toBe(false);
    await client.close();
  });
});

describe('the token: DEBUG_GYM_TOKEN or --token-file; --token warns', () => {
  test('sources in order, each checked', () => {
    const warnings: string[] = [];
    const warn = (text: string): number => warnings.push(text);
    const names = ['DEBUG_GYM_TOKEN', 'DEBUG_GYM_SERVER_TOKEN'];
    expect(resolveServerToken({ envNames: names, env: { DEBUG_GYM_SERVER_TOKEN: 'old' }, warn })).toBe('old');
    expect(resolveServerToken({ envNames: names, env: { DEBUG_GYM_TOKEN: 'new', DEBUG_GYM_SERVER_TOKEN: 'old' }, warn })).toBe('new');
    expect(warnings).toEqual([]);
    expect(resolveServerToken({ flag: 'visible', envNames: names, env: {}, warn })).toBe('visible');
    expect(warnings[0]).toMatch(/--token puts the token on the command line, where every user of this machine can read it .*DEBUG_GYM_TOKEN.*--token-file/);
    const dir = testdir({});
    const file = join(dir, 'token');
    writeFileSync(file, 's3cret\n');
    chmodSync(file, 0o600);
    expect(resolveServerToken({ file, envNames: names, env: {}, warn })).toBe('s3cret');
    expect(warnings).toHaveLength(1);
    chmodSync(file, 0o644);
    resolveServerToken({ file, envNames: names, env: {}, warn });
    expect(warnings[1]).toContain('chmod 600');
    mkdirSync(join(dir, 'folder'));
    for (const bad of [{ file: join(dir, 'missing') }, { file: join(dir, 'folder') }, { file, flag: 'x' }]) {
      expect(() => resolveServerToken({ ...bad, envNames: names, env: {}, warn })).toThrow(expect.objectContaining({ code: 'DG_CLI_CONFIG' }));
    }
  });

  test('serve --http --token-file: requests need that token; --token prints the warning', async () => {
    const dir = testdir({});
    const file = join(dir, 'token');
    writeFileSync(file, 'from-a-file\n', { mode: 0o600 });
    for (const [args, token, warned] of [
      [['--token-file', file], 'from-a-file', false],
      [['--token', 'on-the-command-line'], 'on-the-command-line', true],
    ] as const) {
      const child = spawn(process.execPath, [binPath, 'serve', '--http', '--port', '0', '--terminal', 'local', '--log-level', 'silent', ...args], { cwd: repoRoot, stdio: 'pipe' });
      children.push(child);
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
          if (found) resolve(found);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
      });
      expect((await fetch(`${url}/capacity`)).status).toBe(401);
      expect((await fetch(`${url}/capacity`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect(stderr.includes('--token puts the token on the command line')).toBe(warned);
      child.kill('SIGTERM');
    }
  });
});
