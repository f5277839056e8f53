/**
 * What `env.fork()` must not take from the working copy: the agent can run code there (bash, pdb
 * `!`), so by fork time `.debugignore` / `.debugreadonly` may be edited or gone. The fork keeps the
 * rules its original read at reset. (Local backend: the rule handling is the env's, not the sandbox's;
 * tool-pdb's env-fork tests run fork on every backend.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { localBackend, type Backend, createTestEnv } from '../../../tools/test-utils/src/index.js';
import type { RepoEnv } from '../src/index.js';

const local: Backend = localBackend;

const REPO = {
  'app.py': 'x = 1\n',
  'secret.py': 'ANSWER = 42\n',
  'locked.py': 'y = 2\n',
  'test_app.py': 'def test_app():\n    assert True\n',
  '.debugignore': 'secret.py\n',
  '.debugreadonly': 'locked.py\n',
};

const envs: RepoEnv[] = [];
afterEach(async () => {
  await Promise.all(envs.splice(0).map((env) => env.close()));
});

describe('env.fork() and the path rules', () => {
  it('keeps the hidden and read-only rules read at reset, whatever the agent did to the rules files', async () => {
    const original = createTestEnv(local, { files: REPO, evalOnReset: false });
    envs.push(original);
    await original.reset();
    // The agent's code removes both rules files before the trainer forks.
    await original.terminal.run('rm -f .debugignore .debugreadonly');
    const fork = await original.fork();
    envs.push(fork);
    expect(fork.workspace.isIgnored('secret.py')).toBe(true);
    expect(fork.workspace.isReadonly('locked.py')).toBe(true);
    await expect(fork.workspace.writeText('locked.py', 'y = 3\n')).rejects.toThrow();
    expect(fork.workspace.isIgnored('app.py')).toBe(false);
  });
});
