import { describe, expect, it } from 'vitest';
import { FORK_BOOTSTRAP, forkServerCommand, forkServerStatus, forkStartParams, launchOf, pythonParam, shellWord } from '../src/fork-server.js';

describe('the fork server request', () => {
  it('starts the server like a cold command: the interpreter word, its bootstrap, the socket, the working copy, the groups, the helper pid, standbys', () => {
    expect(forkServerCommand('/usr/bin/python3', '/workspace', ['pytest', 'pdb'])).toBe(`/usr/bin/python3 -c "${FORK_BOOTSTRAP}" @FD@ /workspace pytest,pdb @PPID@ standbys`);
    expect(forkServerCommand('python3', "/tmp/it's here", [], false)).toBe(`python3 -c "${FORK_BOOTSTRAP}" @FD@ '/tmp/it'\\''s here' - @PPID@ -`);
    expect(forkStartParams({ python: 'python3', workdir: '/w', groups: [], env: {}, standbys: false }).cmd).toMatch(/ @PPID@ -$/);
    expect(FORK_BOOTSTRAP).not.toMatch(/["$`\\!]/);
  });

  it('wraps the command in the backend shell, or in the argv the local backend gives', () => {
    const plain = forkStartParams({ python: 'python3', workdir: '/w', groups: ['pytest'], env: { A: '1' } });
    expect(plain).toMatchObject({ cmd: expect.stringContaining('python3 -c'), env: { A: '1' }, cwd: '/w' });
    expect(plain.source).toEqual(expect.stringContaining('def child_main'));
    const wrapped = forkStartParams({ python: 'python3', workdir: '/w', groups: ['pytest'], env: {}, wrap: (command) => ['/bin/sh', '-c', command] });
    expect(wrapped).toMatchObject({ argv: ['/bin/sh', '-c', expect.stringContaining('python3 -c')] });
    expect(wrapped.cmd).toBeUndefined();
  });

  it('reads the helper answers: status, the path a command took', () => {
    expect(forkServerStatus({ id: 1, ok: true, server: { ready: true, python: '3.11.2', groups: ['pytest'], problems: { pdb: 'x' }, unsafe: null } })).toEqual({
      ready: true,
      python: '3.11.2',
      groups: ['pytest'],
      problems: { pdb: 'x' },
    });
    expect(forkServerStatus({ id: 1, ok: true, server: { ready: true, unsafe: 'pytest is in the working copy' } })).toEqual({ ready: false, reason: 'pytest is in the working copy' });
    expect(forkServerStatus({ id: 1, ok: true, server: { ready: false, reason: 'no python' } })).toEqual({ ready: false, reason: 'no python' });
    expect(launchOf({ id: 1, ok: true, via: 'fork' })).toEqual({ via: 'fork-server' });
    expect(launchOf({ id: 1, ok: true, via: 'fork', standby: true })).toEqual({ via: 'fork-server', standby: true });
    expect(launchOf({ id: 1, ok: true, via: 'cold', reason: 'shadowed' })).toEqual({ via: 'cold', reason: 'shadowed' });
    expect(launchOf({ id: 1, ok: true, refused: 'env differs' })).toEqual({ via: 'cold', reason: 'env differs' });
    expect(launchOf({ id: 1, ok: true })).toBeUndefined();
    expect(pythonParam({ args: ['-c', 'pass'], uses: [] }, 9)).toEqual({ args: ['-c', 'pass'], uses: [], pdeathsig: 9 });
    expect(shellWord('plain-word_1.py')).toBe('plain-word_1.py');
  });
});
