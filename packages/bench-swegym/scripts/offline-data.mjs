#!/usr/bin/env node
// Build the offline SWE-Gym instances (two issues over xmltodict, Debian's python-xmltodict
// source package) into a folder, and with Docker also their images from the offline base. Needs a
// build (`pnpm build`).
//
//   node scripts/offline-data.mjs [OUT_DIR] [--image BASE_IMAGE] [--namespace NS]
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { buildOfflineInstances } from '../dist/index.js';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value;
};
const baseImage = option('--image');
const namespace = option('--namespace') ?? 'debug-gym-offline';
const outDir = resolve(args[0] ?? 'swegym-offline');
// The Debian source helper ships with @debug-gym/bench-swesmith (a dependency).
const swesmith = dirname(createRequire(import.meta.url).resolve('@debug-gym/bench-swesmith/package.json'));
const sourceDir = execFileSync('bash', [join(swesmith, 'scripts', 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
const built = await buildOfflineInstances({ sourceDir, outDir, python: process.env.DEBUG_GYM_PYTHON ?? 'python3', namespace, ...(baseImage ? { baseImage } : {}) });
console.log(`${built.rows.length} SWE-Gym instances over xmltodict in ${outDir}`);
console.log(`  local folders (any terminal): ${built.localJsonl}`);
console.log(`  images (Docker):              ${built.jsonl}${built.images.length ? ` (images ${built.images.join(', ')})` : ' (no images: run with --image debug-gym/python-offline:bookworm to build them)'}`);
