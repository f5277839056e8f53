import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvConfigError, checkRepositoryPath } from '../src/index.js';

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function testdir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dg-repo-path-'));
  made.push(root);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  return root;
}

describe('checkRepositoryPath', () => {
  it('accepts a directory and returns it absolute', async () => {
    const repo = testdir({ 'a.py': '' });
    await expect(checkRepositoryPath(repo)).resolves.toBe(repo);
  });

  it.each([
    ['/', /Refusing to use `\/`/],
    [homedir(), /Refusing to use your home directory/],
  ])('refuses %s', async (path, message) => {
    const check = checkRepositoryPath(path);
    await expect(check).rejects.toBeInstanceOf(EnvConfigError);
    await expect(check).rejects.toThrow(message);
  });

  it('refuses a missing path and a file with an actionable message', async () => {
    const repo = testdir({ 'a.py': '' });
    await expect(checkRepositoryPath(join(repo, 'missing'))).rejects.toThrow(/does not exist: pass the path of an existing directory/);
    await expect(checkRepositoryPath(join(repo, 'a.py'))).rejects.toThrow(/is not a directory/);
  });

  it('refuses a tree with more entries than the limit, counting nested folders', async () => {
    const repo = testdir({});
    let dir = repo;
    for (let i = 0; i < 5; i += 1) {
      dir = join(dir, `d${i}`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'f.py'), '');
    }
    await expect(checkRepositoryPath(repo, 10)).resolves.toBe(repo);
    await expect(checkRepositoryPath(repo, 9)).rejects.toThrow(/more than 9 files and folders.*raise `maxRepositoryEntries`/);
  });
});
