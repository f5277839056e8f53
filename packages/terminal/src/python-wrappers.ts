/**
 * `python`, `python3`, `pip` and `pip3` in every sandbox are the configured interpreter, whatever
 * the image or host calls it (Debian has no `python` without `python-is-python3`, and agents type
 * `python`). They are small shell scripts in a directory of their own, first on the sandbox's PATH,
 * outside the working copy and read-only to the sandbox's commands. Scripts rather than symlinks:
 * the interpreter is exec'd by its own path, so `sys.executable` is the configured interpreter and a
 * virtualenv's interpreter still finds its `pyvenv.cfg`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the scripts are inside the bubblewrap jail and the Docker container. */
export const SANDBOX_BIN_DIR = '/run/debug-gym/bin';

/** The commands every sandbox gets. */
export const PYTHON_COMMANDS = ['python', 'python3', 'pip', 'pip3'] as const;

function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The script of `name` (one of PYTHON_COMMANDS) for `python`: an absolute path is exec'd as it is; a
 * bare name (and the helper's fallbacks `python3`, `python`) is looked up on the command's PATH,
 * past `binDir` itself, when it runs.
 */
export function pythonWrapper(name: string, python: string, binDir: string): string {
  const pip = name.startsWith('pip') ? ' -m pip' : '';
  if (python.includes('/')) return `#!/bin/sh\nexec ${quote(python)}${pip} "$@"\n`;
  const candidates = [...new Set([python, 'python3', 'python'])].map(quote).join(' ');
  return [
    '#!/bin/sh',
    `# debug-gym: ${name} is the sandbox's interpreter (${python})`,
    'set -f',
    'IFS=:',
    `for p in ${candidates}; do`,
    '  for d in $PATH; do',
    `    [ -n "$d" ] && [ "$d" != ${quote(binDir)} ] && [ -f "$d/$p" ] && [ -x "$d/$p" ] && exec "$d/$p"${pip} "$@"`,
    '  done',
    'done',
    `echo "${name}: the sandbox's interpreter (${python.replaceAll('"', '')}) is not on PATH" >&2`,
    'exit 127',
    '',
  ].join('\n');
}

const shared = new Map<string, Promise<string>>();

/**
 * A directory of the scripts for the host interpreter `python` (an absolute path), shared by this
 * user's local sandboxes of that interpreter (one PATH, so they share a zygote): `<tmp>/debug-gym-python-<uid>-<hash>`,
 * kept between runs like a cache. One that is not this user's private directory (another user made
 * it first) is not used: a fresh one of this process's is made instead.
 */
export function sharedPythonWrappers(python: string): Promise<string> {
  let dir = shared.get(python);
  if (!dir) {
    dir = makeShared(python);
    shared.set(python, dir);
    dir.catch(() => shared.delete(python));
  }
  return dir;
}

async function makeShared(python: string): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const hash = createHash('sha256').update(python).digest('hex').slice(0, 16);
  let dir = join(tmpdir(), `debug-gym-python-${uid}-${hash}`);
  await mkdir(dir, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const stats = await lstat(dir);
  if (!stats.isDirectory() || stats.uid !== uid || (stats.mode & 0o022) !== 0) dir = await mkdtemp(join(tmpdir(), 'debug-gym-python-'));
  // Written next to their place and renamed over it: another process may be running them.
  await Promise.all(
    PYTHON_COMMANDS.map(async (name) => {
      const temporary = join(dir, `.${name}.${randomBytes(4).toString('hex')}`);
      await writeFile(temporary, pythonWrapper(name, python, dir), { mode: 0o755 });
      await chmod(temporary, 0o755);
      await rename(temporary, join(dir, name));
    }),
  );
  await chmod(dir, 0o755);
  return dir;
}
