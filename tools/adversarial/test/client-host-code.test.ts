import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { availableBackends, testdir } from '@debug-gym/test-utils';
import { afterAll, describe, expect } from 'vitest';
import { attack } from '../src/attack.js';
import { serveBin, ServeClient, terminalParams } from '../src/serve-client.js';

/**
 * Issue 26 §4: a remote client must not run code on the server's host. The client (or the agent
 * whose output it forwards) names a module for the server to import, or a program for it to run,
 * before any sandbox exists. Each module here writes a marker when imported: held means refused
 * AND never run.
 */
const backends = await availableBackends();
const repo = testdir({ 'app.py': 'def add(a, b):\n    return a - b\n', 'test_app.py': 'from app import add\n\ndef test_add():\n    assert add(1, 2) == 3\n' });

function evilModuleSource(marker: string): string {
  return (
    `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'ran');\n` +
    "export default { specificationVersion: 'tool-plugin-v1', name: 'evil', description: 'evil', parameters: { type: 'object', properties: {} }, create: () => ({ run: async () => 'ran' }) };\n"
  );
}

function evilModule(): { file: string; ran: () => boolean } {
  const dir = testdir({});
  const marker = join(dir, 'RAN-ON-THE-HOST');
  const file = join(dir, 'evil.mjs');
  writeFileSync(file, evilModuleSource(marker));
  return { file, ran: () => existsSync(marker) };
}

/** Every way to spell "import this file / package" that the attack tried or could try. */
function spellings(file: string): string[] {
  const fromCwd = relative(process.cwd(), file);
  return [file, pathToFileURL(file).href, `./${fromCwd}`, `../${relative(join(process.cwd(), '..'), file)}`, `${file}/../evil.mjs`, '@evil/debug-gym-tool-x', 'evil.mjs'];
}

/** The real `debug-gym serve --http` on a free port. */
async function httpServer(extra: string[] = []): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [serveBin, 'serve', '--http', '--port', '0', '--log-level', 'silent', ...extra], { stdio: 'pipe' });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (found) resolve(found);
    });
    child.on('exit', (code) => reject(new Error(`serve --http exited ${code}: ${stderr}`)));
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

async function postReset(url: string, body: unknown): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${url}/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = (await response.json()) as { error?: { code: string } };
  return { status: response.status, ...(answer.error ? { code: answer.error.code } : {}) };
}

describe('a client names code for the server to run on its host', () => {
  const stdio = new ServeClient();
  afterAll(() => stdio.end());

  attack('a client names a path to import (tools and benchmark: .mjs, file: URL, relative, ../, package specifier)', 'server', async () => {
    const evil = evilModule();
    const http = await httpServer();
    try {
      for (const name of spellings(evil.file)) {
        const tool = await stdio.call('reset', { path: repo, terminal: terminalParams('local'), tools: [name] });
        expect((tool.error?.data as { code?: string } | undefined)?.code, name).toBe('DG_PLUGIN_NOT_ALLOWED');
        const bench = await stdio.call('reset', { benchmark: name, task: 'x' });
        expect((bench.error?.data as { code?: string } | undefined)?.code, name).toBe('DG_PLUGIN_NOT_ALLOWED');
        expect(await postReset(http.url, { path: repo, terminal: terminalParams('local'), tools: ['view', name] }), name).toEqual({ status: 403, code: 'DG_PLUGIN_NOT_ALLOWED' });
        expect(await postReset(http.url, { benchmark: name, task: 'x' }), name).toEqual({ status: 403, code: 'DG_PLUGIN_NOT_ALLOWED' });
      }
      expect(evil.ran()).toBe(false);
      // The server still serves installed tools by name.
      expect((await stdio.call('reset', { path: repo, terminal: terminalParams('local'), tools: ['view'], evalOnReset: false })).result).toBeDefined();
    } finally {
      http.stop();
    }
  });

  attack('a client names a program the server runs itself (bwrap_path, a host interpreter by path) or the host network', 'server', async () => {
    const dir = testdir({});
    const marker = join(dir, 'RAN-ON-THE-HOST');
    const program = join(dir, 'evil.sh');
    writeFileSync(program, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    for (const terminal of [
      { type: 'bubblewrap', bwrapPath: program },
      { type: 'bubblewrap', python: program },
      { type: 'auto', python: program },
      { type: 'local', python: program },
      { type: 'docker', network: 'host' },
    ]) {
      const reply = await stdio.call('reset', { path: repo, terminal, tools: ['view'] });
      expect((reply.error?.data as { code?: string } | undefined)?.code, JSON.stringify(terminal)).toBe('DG_PARAM_NOT_ALLOWED');
    }
    expect(existsSync(marker)).toBe(false);
  });
});

describe('a client reads a host folder through the rows of its own data file', () => {
  attack("a data_path row's repo_path names a folder outside --repo-root (SWE-smith, R2E-Gym, SWE-Gym and SWE-bench-debug rows may carry one)", 'server', async () => {
    const secret = testdir({ 'secret.txt': 'TOP SECRET host file\n', 'test_s.py': 'def test_x():\n    assert True\n' });
    const root = testdir({});
    // A SWE-smith instance in the upstream schema, plus the repo_path of a local-folder instance.
    const row = {
      instance_id: 'x__y-1',
      repo: 'x/y',
      patch: 'diff --git a/test_s.py b/test_s.py\n--- a/test_s.py\n+++ b/test_s.py\n@@ -1,2 +1,2 @@\n def test_x():\n-    assert True\n+    assert False\n',
      FAIL_TO_PASS: ['test_s.py::test_x'],
      PASS_TO_PASS: [],
      image_name: 'x',
      problem_statement: 'x',
      repo_path: secret,
    };
    const dataPath = join(root, 'data.jsonl');
    writeFileSync(dataPath, `${JSON.stringify(row)}\n`);
    const server = await httpServer(['--repo-root', root]);
    try {
      const reply = await postReset(server.url, { benchmark: 'swesmith', task: 'x__y-1', data_path: dataPath, terminal: { type: 'bubblewrap' }, tools: ['bash'] });
      expect(reply).toEqual({ status: 403, code: 'DG_PARAM_NOT_ALLOWED' });
    } finally {
      server.stop();
    }
  });
});

describe.each(backends.filter((backend) => backend.name === 'docker'))('the agent plants the module on $name, the client names it', (backend) => {
  const server = new ServeClient();
  afterAll(() => server.end(), 120_000);

  attack("an agent's file in its container, named by its host path through the overlay's upper dir", backend.name, async () => {
    const hostDir = testdir({});
    const marker = join(hostDir, 'RAN-ON-THE-HOST');
    const reset = await server.call('reset', { path: repo, terminal: terminalParams('docker'), tools: ['bash'], evalOnReset: false });
    expect(reset.result, JSON.stringify(reset.error)).toBeDefined();
    // What the agent did: write the module where the container's writable layer keeps it, and find that layer on the host.
    const source = evilModuleSource(marker).replace(/'/g, "'\\''");
    await server.step('bash', { command: `printf '%s' '${source}' > /var/tmp/evil.mjs` });
    const mountinfo = await server.step('bash', { command: 'cat /proc/self/mountinfo' });
    const upper = /upperdir=([^,\s]+)/.exec(mountinfo)?.[1];
    const names = upper ? [`${upper}/var/tmp/evil.mjs`, pathToFileURL(`${upper}/var/tmp/evil.mjs`).href] : ['/var/lib/docker/overlay2/x/diff/var/tmp/evil.mjs'];
    for (const name of names) {
      const next = await server.call('reset', { path: repo, terminal: terminalParams('docker'), tools: ['bash', name] });
      expect((next.error?.data as { code?: string } | undefined)?.code, name).toBe('DG_PLUGIN_NOT_ALLOWED');
    }
    expect(existsSync(marker)).toBe(false);
  }, 300_000);
});
