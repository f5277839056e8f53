import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PluginLoadError, WorkspaceError, loadToolPlugin } from '@debug-gym/core';
import { assertToolConformance, createToolContext, runTool } from '@debug-gym/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import wordCountTool from '../src/index.js';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const REPO = {
  'app.py': 'def main():\n    return 42\n',
  'secret.txt': 'hidden\n',
  '.debugignore': 'secret.txt\n',
};

/**
 * A project folder as a user would have it after `npm install debug-gym-tool-word-count`:
 * `node_modules/debug-gym-tool-word-count` is a symlink to this package, so resolution goes
 * through the real package.json (manifest field, `exports`) and the built `dist/`.
 */
let project: string;

function writePackage(name: string, packageJson: Record<string, unknown>, files: Record<string, string>): void {
  const dir = join(project, 'node_modules', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', type: 'module', ...packageJson }));
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
}

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'debug-gym-plugin-user-'));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(packageDir, join(project, 'node_modules', 'debug-gym-tool-word-count'), 'dir');
  // Typical mistakes of a plugin author, to check the loader's messages.
  writePackage('debug-gym-tool-no-manifest', { exports: './index.js' }, { 'index.js': 'export default {};' });
  writePackage(
    'debug-gym-tool-wrong-shape',
    { exports: './index.js', 'debug-gym': { kind: 'tool', name: 'wrong_shape' } },
    { 'index.js': "export default { name: 'wrong_shape', run: async () => 'hi' };" },
  );
  writePackage(
    'debug-gym-tool-named-only',
    { exports: './index.js', 'debug-gym': { kind: 'tool', name: 'named_only' } },
    { 'index.js': "export const plugin = { specificationVersion: 'tool-plugin-v1' };" },
  );
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
});

describe('loading the published package', () => {
  it('resolves the bare name `word-count` to the debug-gym-tool-word-count package', async () => {
    const plugin = await loadToolPlugin('word-count', { from: project });
    expect(plugin.name).toBe('word_count');
    expect(plugin.specificationVersion).toBe('tool-plugin-v1');
    expect(plugin.parameters.required).toEqual(['path']);
  });

  it('resolves the full package name and a local path to the package folder', async () => {
    expect((await loadToolPlugin('debug-gym-tool-word-count', { from: project })).name).toBe('word_count');
    expect((await loadToolPlugin(`./${basename(packageDir)}`, { from: dirname(packageDir) })).name).toBe('word_count');
  });

  it('names the package and the missing manifest field when package.json has no "debug-gym" field', async () => {
    const error = await loadToolPlugin('no-manifest', { from: project }).catch((caught: unknown) => caught);
    expect(PluginLoadError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("package 'debug-gym-tool-no-manifest' has no \"debug-gym\": { \"kind\": \"tool\", ... } field");
  });

  it('explains what is wrong with a default export that is not a tool plugin', async () => {
    await expect(loadToolPlugin('wrong-shape', { from: project })).rejects.toThrow(
      "Could not load tool plugin 'wrong-shape': unsupported specificationVersion undefined; this core understands 'tool-plugin-v1'.",
    );
    await expect(loadToolPlugin('named-only', { from: project })).rejects.toThrow('the module must default-export a tool plugin object (use defineToolPlugin).');
  });

  it('lists the package names it tried for an unknown name', async () => {
    await expect(loadToolPlugin('nosuch', { from: project })).rejects.toThrow(
      `Could not load tool plugin 'nosuch': no package found (tried '@debug-gym/tool-nosuch', 'debug-gym-tool-nosuch' from ${project})`,
    );
  });
});

describe('word_count in a real tool context', () => {
  it('counts a file', async () => {
    const { output } = await runTool(wordCountTool, { path: 'app.py' }, { files: REPO });
    expect(output).toBe('app.py: 2 lines, 4 words, 26 characters');
  });

  it("reports a .debugignore'd file exactly like a missing one", async () => {
    await using context = await createToolContext({ files: REPO });
    const hidden = await runTool(wordCountTool, { path: 'secret.txt' }, { context }).catch((error: unknown) => error);
    const missing = await runTool(wordCountTool, { path: 'nothing.txt' }, { context }).catch((error: unknown) => error);
    expect(WorkspaceError.isInstance(hidden)).toBe(true);
    expect((hidden as Error).message).toBe(`\`secret.txt\` does not exist or is not in the working directory \`${context.workspace.workdir}\`.`);
    expect((missing as Error).message).toBe((hidden as Error).message.replace('secret.txt', 'nothing.txt'));
  });

  it('refuses a call without `path` before run() (the model sees the message)', async () => {
    await expect(runTool(wordCountTool, {})).rejects.toThrow('Invalid arguments for tool `word_count`: missing required argument `path`. Usage: word_count(path: string)');
  });

  it('passes the tool conformance checks', async () => {
    await assertToolConformance(wordCountTool, { validCalls: [{ path: 'src/app.py' }, { path: 'README.md' }] });
  });
});
