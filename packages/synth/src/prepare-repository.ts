import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { SynthError } from './synth-error.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=debug-gym-synth', '-c', 'user.email=synth@debug-gym.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });

/** Folders never copied into the dataset's clean repository (packaging, caches, VCS). */
const SKIPPED = /\/(debian|\.pc|\.git|__pycache__|\.pytest_cache|\.tox|\.eggs|[^/]*\.egg-info)$/;

/**
 * Copy `source` (a project folder, e.g. an unpacked Debian source package) to `target` as a
 * one-commit git repository, as SWE-smith's mirrors are. Returns the commit.
 */
export function prepareRepository(source: string, target: string): string {
  if (!existsSync(source)) throw new SynthError('DG_SYNTH_REPO_INVALID', `the repository ${source} does not exist. Give a folder holding a Python project and its tests.`);
  mkdirSync(target, { recursive: true });
  cpSync(source, target, { recursive: true, filter: (path) => !SKIPPED.test(path) });
  git(target, 'init', '-q', '-b', 'main');
  git(target, 'add', '-A');
  git(target, 'commit', '-qm', 'Initial commit');
  return git(target, 'rev-parse', 'HEAD').trim();
}
