import { chmod, mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PathNotFoundError, SandboxUnavailableError } from '@debug-gym/core';
import { bubblewrapLayout } from '../src/bubblewrap-layout.js';
import { checkBubblewrap } from '../src/bubblewrap-probe.js';
import { BubblewrapTerminal } from '../src/bubblewrap-terminal.js';
import { LocalTerminal } from '../src/local-terminal.js';
import { HostPathResolver } from '../src/path-resolver.js';
import { pythonBinDirs, pythonInstall } from '../src/python-paths.js';
import { SYSTEM_PATH, sandboxEnv } from '../src/sandbox-env.js';
import { shellArgv } from '../src/shell-launch.js';

describe('sandbox environment', () => {
  it('takes nothing from the host: a PATH of the interpreter dir and the system dirs, then the overrides', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { PATH: '/host/bin', PYENV_ROOT: '/py', PYENV_VERSION: '3.9', OPENAI_API_KEY: 'sk', LANG: 'de_DE.UTF-8' });
      const env = sandboxEnv({ home: '/sandbox-home', term: 'xterm', pathFirst: ['/opt/py/bin', '/usr/bin'], overrides: [{ A: '1', LANG: 'C' }, undefined, { A: '2' }] });
      expect(env).toMatchObject({ HOME: '/sandbox-home', TERM: 'xterm', LANG: 'C', A: '2' });
      expect(env.PATH).toBe('/opt/py/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin');
      for (const name of ['OPENAI_API_KEY', 'PYENV_ROOT', 'PYENV_VERSION']) expect(env[name]).toBeUndefined();
      expect(sandboxEnv({ home: '/h', term: 'dumb' }).PATH).toBe(SYSTEM_PATH);
    } finally {
      // Key by key: process.env must stay the real environment (test files share this worker).
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });
});

describe('shell launch', () => {
  it('hands the command untouched to a fresh shell, after cd', () => {
    const argv = shellArgv('/bin/bash', { cwd: '/w', command: 'echo "$1"' });
    expect(argv.slice(0, 4)).toEqual(['/bin/bash', '--noprofile', '--norc', '-c']);
    expect(argv[4]).toBe('exec 2>&1; cd -- "$1" || exit 1; exec "$0" --noprofile --norc -c "$2"');
    expect(argv.slice(5)).toEqual(['/bin/bash', '/w', 'echo "$1"']);
    const sh = shellArgv('/bin/sh', { cwd: '/w', command: 'x', session: true });
    expect(sh[2]).toBe('stty -echo 2>/dev/null; cd -- "$1" || exit 1; exec "$0"  -c "$2"');
  });
});

describe('local terminal options', () => {
  it('applies terminal-wide env under per-call env', async () => {
    const term = new LocalTerminal({ env: { A: 'terminal', B: 'terminal' } });
    await term.start();
    try {
      const result = await term.run('echo "$A $B"', { env: { B: 'call' } });
      expect(result.output).toBe('terminal call\n');
    } finally {
      await term.close();
    }
  });

  it('a shell that does not exist is a typed error', async () => {
    const term = new LocalTerminal({ shell: '/nonexistent/bash' });
    await term.start();
    try {
      await expect(term.run('true')).rejects.toBeInstanceOf(SandboxUnavailableError);
    } finally {
      await term.close();
    }
  });

  it('uses DEBUG_GYM_PYTHON, then python3, when no python is configured', () => {
    const saved = process.env.DEBUG_GYM_PYTHON;
    try {
      process.env.DEBUG_GYM_PYTHON = '/opt/custom/python';
      expect(new LocalTerminal().python).toBe('/opt/custom/python');
      delete process.env.DEBUG_GYM_PYTHON;
      expect(new LocalTerminal().python).toBe('python3');
      expect(new LocalTerminal({ python: 'py' }).python).toBe('py');
    } finally {
      if (saved === undefined) delete process.env.DEBUG_GYM_PYTHON;
      else process.env.DEBUG_GYM_PYTHON = saved;
    }
  });
});

describe('path resolution', () => {
  let root: string;
  let work: string;
  let hidden: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'resolver-'));
    work = join(root, 'work');
    hidden = join(root, 'hidden');
    await mkdir(join(work, 'dir'), { recursive: true });
    await mkdir(hidden);
    await writeFile(join(hidden, 'secret'), 's');
    await writeFile(join(work, 'dir', 'file'), 'f');
    await symlink('loop-b', join(work, 'loop-a'));
    await symlink('loop-a', join(work, 'loop-b'));
    await symlink('dir/../dir/./file', join(work, 'rel'));
    await symlink(join(work, 'dir'), join(work, 'abs'));
    await symlink(join(hidden, 'secret'), join(work, 'secret-link'));
    await symlink('/bin/sh', join(work, 'sh'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('on the host, paths are host paths', async () => {
    const resolver = new HostPathResolver(work);
    expect(await resolver.realPath('secret-link')).toBe(join(hidden, 'secret'));
    expect(await resolver.resolve('x/../y', true)).toEqual({ host: join(work, 'y'), writable: true, resolved: false });
    await expect(resolver.realPath('loop-a')).rejects.toBeInstanceOf(PathNotFoundError);
  });
});

describe('bubblewrap layout', () => {
  it('hides everything but system dirs, shows extra paths read-only, and only sized tmpfs mounts writable', () => {
    const args = bubblewrapLayout({
      workdir: '/work/space',
      readOnly: ['/home/me/.venv', '/usr/lib/python3', '/tmp', '/', '/work', '/work/space/venv', 'relative', '/nonexistent-path', tmpdir()],
      sizes: { workdir: 1000, tmp: 2000, shm: 3000 },
    });
    const text = args.join(' ');
    expect(text).toContain('--ro-bind /usr /usr');
    expect(text).not.toContain('/home/me'); // does not exist on this host
    expect(text).not.toContain('--ro-bind /usr/lib/python3'); // /usr shows it already
    expect(text).not.toMatch(/--ro-bind \/tmp |--ro-bind \/ |--ro-bind \/work /); // would show the host's /tmp or hide the jail's mounts
    expect(text).toContain('--perms 1777 --size 3000 --tmpfs /dev/shm --perms 1777 --size 2000 --tmpfs /tmp');
    expect(text).toContain('--perms 0755 --dir /work --perms 0777 --size 1000 --tmpfs /work/space');
    expect(text).toMatch(/--remount-ro \/dev --remount-ro \/$/); // the jail's own root and /dev are read-only too
    expect(text).not.toMatch(/--bind /); // nothing of the host is writable
  });
});

describe('python install', () => {
  it('finds the real interpreter and its prefixes with the host settings, once', async () => {
    const python = process.env.DEBUG_GYM_PYTHON ?? 'python3';
    const install = await pythonInstall(python);
    expect(install.executable).toMatch(/^\//);
    expect(install.paths.length).toBeGreaterThan(0);
    expect(pythonBinDirs(install)).toEqual([dirname(install.executable as string)]);
    expect(await pythonInstall(python)).toBe(install);
    expect(await pythonInstall('no-such-python-here')).toEqual({ paths: [] });
    expect(pythonBinDirs({ paths: [] })).toEqual([]);
  });
});

const bwrap = await checkBubblewrap();

describe.runIf(bwrap.available)('bubblewrap options', () => {
  let shared: string;

  beforeAll(async () => {
    shared = await mkdtemp(join(homedir(), '.debug-gym-shared-'));
    await chmod(shared, 0o755); // as root the sandbox runs as another uid: it needs read access
    await writeFile(join(shared, 'data.txt'), 'shared data\n');
  });

  afterAll(async () => {
    await rm(shared, { recursive: true, force: true });
  });

  it('shows readOnlyPaths read-only, and limits memory', async () => {
    const term = new BubblewrapTerminal({ readOnlyPaths: [shared], maxMemoryBytes: 512 * 1024 * 1024, maxProcesses: 50 });
    await term.start();
    try {
      const read = await term.run(`cat ${shared}/data.txt; touch ${shared}/new 2>/dev/null || echo read-only; ulimit -u`);
      expect(read.output).toBe('shared data\nread-only\n50\n');
      expect(Buffer.from(await term.readFile(`${shared}/data.txt`)).toString()).toBe('shared data\n');
      const big = await term.run(`${term.python} -c "x = bytearray(1024 * 1024 * 1024)" 2>&1 | tail -1`);
      expect(big.output).toContain('MemoryError');
    } finally {
      await term.close();
    }
  });
});
