#!/usr/bin/env node
// `pnpm check:packages [name...]`: pack every public workspace package the way `pnpm publish` would
// (pnpm applies `publishConfig` overrides when packing) and check the tarball, not the folder:
//   - publint (strict: warnings count as errors) on the packed files;
//   - are-the-types-wrong with the `esm-only` profile (our packages ship ESM only, so the node10 and
//     node16-from-CJS resolutions are expected to fail and are not checked);
//   - the packed manifest: no `@debug-gym/source` condition (it points at src/, which is not shipped),
//     `exports` equal to the development `exports` minus that condition (so publishConfig.exports cannot
//     drift), no `workspace:` ranges, and every `bin` target shipped.
// Prints one table; exits 1 when any package has an error. Expects built packages (`pnpm build`).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

const SOURCE_CONDITION = '@debug-gym/source';
const ATTW_IGNORED = new Set(['node10', 'node16-cjs']); // what `--profile esm-only` ignores
const root = new URL('..', import.meta.url).pathname;
const attwBin = join(root, 'node_modules', '.bin', 'attw');
const run = promisify(execFile);
/** Packages checked at once (pack and attw are separate processes; CI machines have two cores). */
const CONCURRENCY = 2;

/** Non-private workspace packages (every folder in pnpm-workspace.yaml), optionally only the named ones. */
function publicPackages(only) {
  const listed = JSON.parse(execFileSync('pnpm', ['ls', '-r', '--depth', '-1', '--json'], { cwd: root, encoding: 'utf8' }));
  return listed
    .filter((pkg) => pkg.name && !pkg.private && pkg.path !== root.replace(/\/$/, ''))
    .filter((pkg) => only.length === 0 || only.includes(pkg.name))
    .map((pkg) => ({ name: pkg.name, dir: pkg.path }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The files of a .tgz as `{ 'package/...': Buffer }` (ustar, as npm and pnpm write it). */
function untar(tarball) {
  const data = gunzipSync(tarball);
  const files = {};
  for (let offset = 0; offset + 512 <= data.length; ) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const text = (start, length) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const name = (text(345, 155) ? `${text(345, 155)}/` : '') + text(0, 100);
    const size = parseInt(text(124, 12).trim() || '0', 8);
    if (text(156, 1) === '0' || text(156, 1) === '') files[name] = data.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

function withoutSourceCondition(value) {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== SOURCE_CONDITION).map(([key, inner]) => [key, withoutSourceCondition(inner)]));
}

/** Problems of the packed package.json that publint does not look for. */
function manifestProblems(packed, development, files) {
  const problems = [];
  const text = JSON.stringify(packed);
  if (text.includes(SOURCE_CONDITION)) problems.push(`the packed package.json still has the "${SOURCE_CONDITION}" condition: add publishConfig.exports without it`);
  const expected = withoutSourceCondition(development.exports);
  if (JSON.stringify(packed.exports) !== JSON.stringify(expected)) {
    problems.push(`the packed exports ${JSON.stringify(packed.exports)} differ from the development exports without "${SOURCE_CONDITION}": ${JSON.stringify(expected)}`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(packed[field] ?? {})) {
      if (String(range).startsWith('workspace:')) problems.push(`${field}.${name} is still "${range}"`);
    }
  }
  const bins = typeof packed.bin === 'string' ? { [packed.name]: packed.bin } : (packed.bin ?? {});
  for (const [command, target] of Object.entries(bins)) {
    if (!files[`package/${target.replace(/^\.\//, '')}`]) problems.push(`bin ${command} → ${target} is not in the tarball`);
  }
  return problems;
}

async function runAttw(tarballPath) {
  // attw exits 1 when it finds a problem: read its report either way.
  const result = await run(attwBin, [tarballPath, '--profile', 'esm-only', '--format', 'json'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error) => ({ status: error.code ?? 1, stdout: error.stdout ?? '', stderr: error.stderr ?? String(error) }),
  );
  let problems = [];
  try {
    const report = JSON.parse(result.stdout);
    problems = Object.values(report.analysis?.problems ?? report.problems ?? {})
      .flat()
      .filter((problem) => !ATTW_IGNORED.has(problem.resolutionKind))
      .map((problem) => `${problem.kind} (${problem.entrypoint ?? '.'}${problem.resolutionKind ? `, ${problem.resolutionKind}` : ''})`);
  } catch {
    problems = [`attw did not report (exit ${result.status}): ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ')}`];
  }
  if (result.status !== 0 && problems.length === 0) problems.push(`attw exited ${result.status}`);
  return problems;
}

async function checkPackage(pkg, destination) {
  const packed = JSON.parse((await run('pnpm', ['pack', '--pack-destination', destination, '--json'], { cwd: pkg.dir, encoding: 'utf8' })).stdout);
  const tarball = readFileSync(packed.filename);
  const files = untar(tarball);
  const manifest = JSON.parse(files['package/package.json'].toString('utf8'));
  const development = JSON.parse(readFileSync(join(pkg.dir, 'package.json'), 'utf8'));
  const lint = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true, level: 'suggestion' });
  const publintErrors = lint.messages.filter((message) => message.type === 'error').map((message) => formatMessage(message, manifest, { color: false }));
  const publintNotes = lint.messages.filter((message) => message.type !== 'error').map((message) => formatMessage(message, manifest, { color: false }));
  return {
    name: pkg.name,
    folder: relative(root, pkg.dir),
    version: manifest.version,
    fileCount: Object.keys(files).length,
    kilobytes: (tarball.length / 1024).toFixed(1),
    publintErrors,
    publintNotes,
    attw: await runAttw(packed.filename),
    manifest: manifestProblems(manifest, development, files),
  };
}

function printTable(rows) {
  const header = ['package', 'folder', 'version', 'files', 'kB', 'publint', 'attw (esm-only)', 'manifest'];
  const cell = (problems, notes = []) => (problems.length ? `✗ ${problems.length} error(s)` : notes.length ? `✓ (${notes.length} note(s))` : '✓');
  const lines = rows.map((row) => [row.name, row.folder, row.version, String(row.fileCount), row.kilobytes, cell(row.publintErrors, row.publintNotes), cell(row.attw), cell(row.manifest)]);
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (line) => line.map((value, column) => value.padEnd(widths[column])).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
}

const started = Date.now();
const packages = publicPackages(process.argv.slice(2));
if (packages.length === 0) {
  console.error('check-packages: no public workspace package matched.');
  process.exit(1);
}
const destination = mkdtempSync(join(tmpdir(), 'debug-gym-pack-'));
const rows = new Array(packages.length);
let next = 0;
async function worker() {
  while (next < packages.length) {
    const index = next++;
    const pkg = packages[index];
    try {
      rows[index] = await checkPackage(pkg, destination);
    } catch (error) {
      rows[index] = { name: pkg.name, folder: relative(root, pkg.dir), version: '?', fileCount: 0, kilobytes: '0', publintErrors: [], publintNotes: [], attw: [], manifest: [`could not pack or read: ${error.message.split('\n')[0]}`] };
    }
  }
}
try {
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
} finally {
  rmSync(destination, { recursive: true, force: true });
}

printTable(rows);
let failed = 0;
for (const row of rows) {
  const details = [
    ...row.publintErrors.map((text) => `publint: ${text}`),
    ...row.attw.map((text) => `attw: ${text}`),
    ...row.manifest.map((text) => `manifest: ${text}`),
  ];
  if (details.length) failed += 1;
  const notes = row.publintNotes.map((text) => `publint note: ${text}`);
  if (details.length || notes.length) console.log(`\n${row.name}:\n${[...details, ...notes].map((text) => `  - ${text}`).join('\n')}`);
}
console.log(`\n${rows.length} package(s) packed and checked in ${((Date.now() - started) / 1000).toFixed(1)} s: ${failed ? `${failed} with errors` : 'no errors'}.`);
process.exit(failed ? 1 : 0);
