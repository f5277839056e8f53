#!/usr/bin/env node
// Release isolation: a `@debug-gym/core` minor must not release any plugin (tool-*, bench-*), agents, mcp, trajectory-formats,
// the plugin contract (spec, plugin-kit) or the example plugin; a `@debug-gym/spec` minor must
// release them (so this check can fail). Runs `changeset status` in a temporary copy of the
// workspace manifests with the pending changesets removed: the real .changeset is never touched.
//
// Usage: node scripts/check-release-isolation.mjs [--json]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Packages whose release must not follow core's. */
const ISOLATED = /^(@debug-gym\/(tool-[\w-]+|bench-[\w-]+|agents|mcp|trajectory-formats|spec|plugin-kit)|debug-gym-tool-word-count)$/;
/** Packages a spec minor must release (everything that peer-depends on the contract). */
const SPEC_DEPENDENTS = /^(@debug-gym\/(tool-[\w-]+|bench-[\w-]+|agents|mcp|trajectory-formats|plugin-kit)|debug-gym-tool-word-count)$/;

function git(cwd, ...args) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A git repository holding the workspace's manifests and changeset config, and no pending changeset. */
function workspaceCopy() {
  const dir = mkdtempSync(join(tmpdir(), 'debug-gym-release-isolation-'));
  const files = git(root, 'ls-files', '--cached', '--others', '--exclude-standard', '--', 'package.json', 'pnpm-workspace.yaml', '.changeset/config.json', '**/package.json')
    .split('\n')
    .filter((file) => file && !file.includes('node_modules/'));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=check', '-c', 'user.email=check@localhost', 'commit', '--quiet', '-m', 'manifests');
  return dir;
}

/** The package names `changeset status` would release for one `<pkg>: minor` changeset. */
function releasesFor(dir, packageName) {
  rmSync(join(dir, '.changeset'), { recursive: true, force: true });
  mkdirSync(join(dir, '.changeset'));
  cpSync(join(root, '.changeset/config.json'), join(dir, '.changeset/config.json'));
  writeFileSync(join(dir, '.changeset/isolation-check.md'), `---\n"${packageName}": minor\n---\n\nRelease isolation check.\n`);
  const output = join(dir, 'status.json');
  const bin = createRequire(join(root, 'package.json')).resolve('@changesets/cli/bin.js');
  execFileSync(process.execPath, [bin, 'status', '--output', output], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const status = JSON.parse(readFileSync(output, 'utf8'));
  return status.releases.filter((release) => release.type !== 'none').map((release) => `${release.name}@${release.newVersion} (${release.type})`);
}

const dir = workspaceCopy();
let failed = false;
try {
  const coreReleases = releasesFor(dir, '@debug-gym/core');
  const leaked = coreReleases.filter((release) => ISOLATED.test(release.split('@').slice(0, -1).join('@')));
  console.log(`core minor releases: ${coreReleases.join(', ')}`);
  if (leaked.length > 0) {
    failed = true;
    console.error(`FAIL: a @debug-gym/core minor would also release ${leaked.join(', ')}. Plugins must peer-depend on @debug-gym/spec only (core may be a devDependency).`);
  }
  const specReleases = releasesFor(dir, '@debug-gym/spec');
  const names = new Set(specReleases.map((release) => release.split('@').slice(0, -1).join('@')));
  const missing = workspaceNames(dir).filter((name) => SPEC_DEPENDENTS.test(name) && !names.has(name));
  console.log(`spec minor releases: ${specReleases.join(', ')}`);
  if (missing.length > 0) {
    failed = true;
    console.error(`FAIL (sanity): a @debug-gym/spec minor should release every plugin, but not ${missing.join(', ')}: does the check still see the dependency on spec?`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.log('release isolation: ok (a core minor releases no plugin; a spec minor releases them all)');

function workspaceNames(dir) {
  return git(dir, 'ls-files', '--', '**/package.json', 'package.json')
    .split('\n')
    .filter(Boolean)
    .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')))
    .filter((manifest) => manifest.name && !manifest.private)
    .map((manifest) => manifest.name);
}
