import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { EnvInfo } from '@debug-gym/core';
import { testPython, testdir } from '@debug-gym/test-utils';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createDispatcher, createEnvServer, RPC_ERRORS, RpcError, runServe } from '../src/index.js';
import { buggyRepo } from './helpers/fixtures.js';
import { binPath, repoRoot } from './helpers/cli.js';

const local = { type: 'local', python: testPython };

/** `debug-gym serve` as a child process, one JSON message per line each way. */
class ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private readonly waiters: Array<(line: string) => void> = [];
  stderr = '';

  constructor() {
    this.child = spawn(process.execPath, [binPath, 'serve'], { cwd: repoRoot, stdio: 'pipe' });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
  }

  send(text: string): void {
    this.child.stdin.write(`${text}\n`);
  }

  next(): Promise<unknown> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(JSON.parse(line));
    return new Promise((resolve) => this.waiters.push((text) => resolve(JSON.parse(text))));
  }

  async call(id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return (await this.next()) as Record<string, unknown>;
  }

  async end(): Promise<number | null> {
    this.child.stdin.end();
    return new Promise((resolve) => this.child.on('close', resolve));
  }
}

/** Pids of processes whose environment carries `SERVE_TEST=<marker>`. */
/** Processes that carry `marker` in their environment (and run `command`, when given). */
async function marked(marker: string, command?: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    try {
      if (!readFileSync(`/proc/${name}/environ`).includes(`SERVE_TEST=${marker}\0`)) continue;
      if (command === undefined || readFileSync(`/proc/${name}/cmdline`).includes(command)) pids.push(Number(name));
    } catch {
      // not a process, or gone
    }
  }
  return pids;
}

let server: ServeProcess | undefined;
afterEach(async () => {
  await server?.end();
  server = undefined;
});

describe('debug-gym serve (a child process speaking JSON lines)', () => {
  test('reset → info, step → info, close, with the env info as plain JSON', async () => {
    server = new ServeProcess();
    const reset = await server.call(1, 'reset', { path: buggyRepo(), terminal: local, tools: ['view', 'eval', 'rewrite'], entrypoint: 'python -m pytest -q .' });
    expect(reset).toMatchObject({ jsonrpc: '2.0', id: 1, result: { score: 1, maxScore: 2, resolved: false, terminated: false, stepCount: 0 } });
    const info = reset.result as { tools: Array<{ function: { name: string } }>; instructions: string; stepObservation: { source: string } };
    expect(info.tools.map((tool) => tool.function.name)).toEqual(['view', 'eval', 'rewrite']);
    expect(info.stepObservation.source).toBe('env');
    const step = await server.call(2, 'step', { name: 'rewrite', arguments: { path: 'app.py', start: 2, new_code: '    return a + b' }, id: 'call-1' });
    expect(step).toMatchObject({ id: 2, result: { stepCount: 1, rewriteCount: 1, actionToolCall: { id: 'call-1', name: 'rewrite' } } });
    const evaluated = await server.call(3, 'step', { name: 'eval' });
    expect(evaluated).toMatchObject({ id: 3, result: { score: 2, maxScore: 2, resolved: true, terminated: true } });
    expect(await server.call(4, 'close')).toEqual({ jsonrpc: '2.0', id: 4, result: null });
    expect(await server.end()).toBe(0);
    server = undefined;
  });

  test('bad JSON, unknown methods, invalid requests and params, and a step before reset get JSON-RPC errors; the server keeps going', async () => {
    server = new ServeProcess();
    server.send('{"jsonrpc": "2.0", "id": 1, "method": "reset"');
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32700, message: expect.stringContaining('Parse error') } });
    expect(await server.call(2, 'frobnicate')).toMatchObject({ id: 2, error: { code: -32601, message: "Method not found: 'frobnicate'. Methods: reset, step, fork, close." } });
    expect(await server.call(3, 'step', { name: 'eval' })).toMatchObject({ id: 3, error: { code: -32001, message: expect.stringContaining('call `reset` first') } });
    expect(await server.call(4, 'reset', { path: '/x', tols: ['eval'] })).toMatchObject({ id: 4, error: { code: -32602, message: expect.stringContaining('Unknown key `tols`; did you mean `tools`?') } });
    expect(await server.call(5, 'reset', {})).toMatchObject({ id: 5, error: { code: -32602, message: expect.stringContaining('`path` must be the path of the repository') } });
    server.send('{"jsonrpc": "1.0", "id": 6, "method": "reset"}');
    expect(await server.next()).toMatchObject({ id: 6, error: { code: -32600 } });
    server.send('[]');
    expect(await server.next()).toMatchObject({ id: null, error: { code: -32600, message: 'Invalid request: empty batch.' } });
    expect(await server.call(7, 'reset', { path: join(buggyRepo(), 'missing'), terminal: local, tools: ['eval'] })).toMatchObject({ id: 7, error: { code: -32000, data: { name: expect.any(String), code: expect.stringMatching(/^DG_/) } } });
    expect(await server.call(8, 'reset', { path: buggyRepo(), terminal: local, tools: ['no-such-tool'] })).toMatchObject({ id: 8, error: { code: -32000, message: expect.stringContaining('no-such-tool'), data: { code: 'DG_PLUGIN_LOAD_FAILED' } } });
    const ok = await server.call(9, 'reset', { path: buggyRepo(), terminal: local, tools: ['eval'] });
    expect(ok).toMatchObject({ id: 9, result: { score: 1 } });
    expect(await server.call(10, 'step', { name: 'eval', arguments: 5 })).toMatchObject({ id: 10, error: { code: -32602 } });
    expect(await server.call(11, 'step', { name: 'nope' })).toMatchObject({ id: 11, result: { stepObservation: { source: 'env', observation: "Tool 'nope' not found among available tools: eval." } } });
    expect(server.stderr).not.toContain('internal error');
  });

  test('a batch gets one array of answers; notifications get none', async () => {
    server = new ServeProcess();
    server.send(JSON.stringify([{ jsonrpc: '2.0', method: 'close' }, { jsonrpc: '2.0', id: 'a', method: 'nope' }, 7]));
    expect(await server.next()).toEqual([
      { jsonrpc: '2.0', id: 'a', error: { code: -32601, message: "Method not found: 'nope'. Methods: reset, step, fork, close." } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('expected an object') } },
    ]);
    server.send(JSON.stringify({ jsonrpc: '2.0', method: 'close' }));
    expect(await server.call(1, 'close')).toEqual({ jsonrpc: '2.0', id: 1, result: null });
  });

  test('the Python client of the README drives the env', async () => {
    const readme = (await import('node:fs')).readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const client = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(client).toBeDefined();
    const dir = testdir({ 'client.py': `${client}\n` });
    const repo = buggyRepo();
    writeFileSync(
      join(dir, 'main.py'),
      [
        'import json, sys',
        'from client import DebugGym',
        `env = DebugGym(["${process.execPath}", "${binPath}", "serve"])`,
        `info = env.reset(path="${repo}", terminal={"type": "local", "python": "${testPython}"}, tools=["eval", "rewrite"])`,
        'print("reset", info["score"], info["maxScore"])',
        'info = env.step("rewrite", path="app.py", start=2, new_code="    return a + b")',
        'info = env.step("eval")',
        'print("eval", info["score"], info["resolved"])',
        'branch = env.fork()',
        'info = env.step("rewrite", env=branch, path="app.py", start=2, new_code="    return a * b")',
        'print("fork", branch, env.step("eval", env=branch)["score"], env.step("eval")["score"])',
        'try:',
        '    env.call("nope")',
        'except RuntimeError as error:',
        '    print("error", error)',
        'env.close()',
      ].join('\n'),
    );
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('/usr/bin/python3', ['main.py'], { cwd: dir });
      let text = '';
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
      child.on('error', reject);
      child.on('close', () => resolve(text));
    });
    expect(output).toContain('reset 1 2');
    expect(output).toContain('eval 2 True');
    expect(output).toContain('fork fork-1 1 2');
    expect(output).toContain("error -32601: Method not found: 'nope'");
  });
});

describe('the serve protocol in process', () => {
  test('runServe answers each line in order and closes the env when the input ends', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let text = '';
    output.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const serving = runServe({ input, output, cwd: testdir({}) });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'reset', params: { path: buggyRepo(), terminal: local, tools: [['eval', {}], 'view'] } })}\n`);
    input.write('\n');
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'reset', params: {} })}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'step', params: { name: 'view', arguments: { path: 'app.py' } } })}\n`);
    input.end();
    await serving;
    const replies = text.trim().split('\n').map((line) => JSON.parse(line) as { id: number; result: { stepCount: number; stepObservation: { observation: string } } });
    expect(replies.map((reply) => reply.id)).toEqual([1, 2, 3]);
    expect(replies[1]?.result.stepCount).toBe(0);
    expect(replies[2]?.result.stepObservation.observation).toContain('return a - b');
  });

  test('SIGTERM cancels the running step (a JSON-RPC error), kills its command, answers later requests with errors, and ends with exit code 143', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const replies: Array<Record<string, unknown>> = [];
    createInterface({ input: output }).on('line', (line) => replies.push(JSON.parse(line) as Record<string, unknown>));
    const signals = new EventEmitter();
    const serving = runServe({ input, output, cwd: testdir({}), signals });
    const marker = `serve-shutdown-${process.pid}`;
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'reset', params: { path: buggyRepo(), terminal: { ...local, env: { SERVE_TEST: marker } }, tools: ['bash'] } })}\n`);
    await vi.waitFor(() => expect(replies).toHaveLength(1), { timeout: 60_000 });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'step', params: { name: 'bash', arguments: { command: 'sleep 600', timeout: 3600 } } })}\n`);
    // The sandbox's helper and fork server carry the marker too: wait for the command itself.
    await vi.waitFor(async () => expect(await marked(marker, 'sleep')).not.toEqual([]), { timeout: 60_000 });
    signals.emit('SIGTERM', 'SIGTERM');
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'reset', params: {} })}\n`);
    await expect(serving).rejects.toMatchObject({ exitCode: 143, message: expect.stringContaining('stopped by SIGTERM') });
    expect(replies[1]).toMatchObject({ id: 2, error: { code: RPC_ERRORS.serverError, message: expect.stringContaining('shutting down (SIGTERM)'), data: { code: 'DG_SERVE_SHUTTING_DOWN' } } });
    expect(await marked(marker)).toEqual([]);
  });

  test('fork branches an env under a new handle: its own edits and score, and closing it leaves the main env open', async () => {
    const server = createEnvServer();
    const call = (method: string, params: unknown): Promise<unknown> => (server.methods[method] as (params: unknown) => Promise<unknown>)(params);
    try {
      await call('reset', { path: buggyRepo(), terminal: local, tools: ['view', 'rewrite', 'eval'] });
      const forked = (await call('fork', {})) as { env: string; warnings: string[] };
      expect(forked).toEqual({ env: 'fork-1', warnings: [] });
      const fixed = (await call('step', { name: 'rewrite', arguments: { path: 'app.py', start: 2, new_code: '    return a + b' }, env: forked.env })) as EnvInfo;
      expect(fixed.rewriteCount).toBe(1);
      expect(((await call('step', { name: 'eval', arguments: {}, env: forked.env })) as EnvInfo).score).toBe(2);
      const main = (await call('step', { name: 'eval', arguments: {} })) as EnvInfo;
      expect({ score: main.score, rewriteCount: main.rewriteCount }).toEqual({ score: 1, rewriteCount: 0 });
      expect((await call('fork', { env: forked.env })) as { env: string }).toMatchObject({ env: 'fork-2' });
      await call('close', { env: forked.env });
      await expect(call('step', { name: 'view', arguments: { path: 'app.py' }, env: forked.env })).rejects.toMatchObject({ code: RPC_ERRORS.invalidParams, message: expect.stringContaining("Unknown env handle 'fork-1'") });
      expect(((await call('step', { name: 'view', arguments: { path: 'app.py' }, env: 'fork-2' })) as EnvInfo).stepObservation.observation).toContain('return a + b');
      expect(((await call('step', { name: 'view', arguments: { path: 'app.py' }, env: 'main' })) as EnvInfo).stepObservation.observation).toContain('return a - b');
    } finally {
      await server.close();
    }
  });

  test('shutdown closes the env and refuses every later request', async () => {
    const server = createEnvServer();
    await server.methods.reset?.({ path: buggyRepo(), terminal: local, tools: ['view'] });
    await server.shutdown('SIGINT');
    await expect(server.methods.step?.({ name: 'view', arguments: { path: 'app.py' } })).rejects.toMatchObject({ code: 'DG_SERVE_SHUTTING_DOWN' });
    await expect(server.methods.reset?.({ path: buggyRepo() })).rejects.toMatchObject({ code: 'DG_SERVE_SHUTTING_DOWN' });
  });

  test('lean replies are opt-in: reply "lean" sends the step observation and what changed, include forces fields', async () => {
    const server = createEnvServer();
    try {
      const full = (await server.methods.reset?.({ path: buggyRepo(), terminal: local, tools: ['view', 'rewrite'], evalOnReset: false })) as Record<string, unknown>;
      const plain = (await server.methods.step?.({ name: 'view', arguments: { path: 'app.py' } })) as Record<string, unknown>;
      expect(Object.keys(plain).sort()).toEqual(Object.keys(full).sort());
      const lean = (await server.methods.step?.({ name: 'view', arguments: { path: 'app.py' }, reply: 'lean' })) as Record<string, unknown>;
      expect(lean).toMatchObject({ stepObservation: { source: 'view' }, stepCount: 2, score: 0 });
      expect(lean).not.toHaveProperty('dirTree');
      expect(lean).not.toHaveProperty('tools');
      const changed = (await server.methods.step?.({ name: 'rewrite', arguments: { path: 'new.py', new_code: 'x = 1' }, reply: 'lean', include: ['tools'] })) as { dirTree: string; tools: unknown[]; rewriteCount: number };
      expect(changed.dirTree).toContain('new.py');
      expect(changed.tools).toHaveLength(2);
      expect(changed.rewriteCount).toBe(1);
      await expect(server.methods.step?.({ name: 'view', reply: 'short' })).rejects.toMatchObject({ code: RPC_ERRORS.invalidParams });
      const again = (await server.methods.reset?.({ reply: 'lean' })) as Record<string, unknown>;
      expect(again).toHaveProperty('dirTree');
    } finally {
      await server.close();
    }
  });

  test('a reset with other options builds a new env with them', async () => {
    const server = createEnvServer();
    const repo = buggyRepo();
    try {
      const first = (await server.methods.reset?.({ path: repo, terminal: local, tools: ['eval'] })) as { tools: unknown[] };
      const other = (await server.methods.reset?.({ path: repo, terminal: local, tools: ['eval', 'view'] })) as { tools: unknown[] };
      expect(first.tools).toHaveLength(1);
      expect(other.tools).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test('errors become JSON-RPC error objects: RpcError as is, debug-gym errors as server errors, others as internal errors', async () => {
    const server = createEnvServer();
    expect(server.toRpcError(new Error('kaboom'))).toMatchObject({ code: RPC_ERRORS.internalError, message: 'Internal error: kaboom' });
    const dispatcher = createDispatcher(
      {
        fails: async () => {
          throw new RpcError(-32099, 'custom', { why: 1 });
        },
        throwsString: async () => {
          throw 'text';
        },
      },
      (error) => server.toRpcError(error),
    );
    expect(JSON.parse((await dispatcher.handleLine('{"jsonrpc":"2.0","id":1,"method":"fails"}')) as string)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32099, message: 'custom', data: { why: 1 } } });
    expect(JSON.parse((await dispatcher.handleLine('{"jsonrpc":"2.0","id":2,"method":"throwsString"}')) as string)).toMatchObject({ error: { code: -32603, message: 'Internal error: text' } });
    expect(JSON.parse((await dispatcher.handleLine('{"jsonrpc":"2.0","id":{},"method":"x"}')) as string)).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining('`id` must be') } });
    expect(JSON.parse((await dispatcher.handleLine('{"jsonrpc":"2.0","id":3,"method":4}')) as string)).toMatchObject({ id: 3, error: { code: -32600 } });
    expect(JSON.parse((await dispatcher.handleLine('{"jsonrpc":"2.0","id":4,"method":"fails","params":3}')) as string)).toMatchObject({ id: 4, error: { code: -32600, message: expect.stringContaining('`params` must be an object') } });
    expect(await dispatcher.handleLine('[{"jsonrpc":"2.0","method":"fails"}]')).toBeNull();
  });
});
