#!/usr/bin/env node
// Build the offline SWE-smith instances (xmltodict from Debian's source package, three bugs) into a
// folder, and with Docker also their image from the offline base. Needs a build (`pnpm build`).
//
//   node scripts/offline-data.mjs [OUT_DIR] [--image BASE_IMAGE] [--namespace NS]
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
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
const outDir = resolve(args[0] ?? 'swesmith-offline');
const here = dirname(fileURLToPath(import.meta.url));
const sourceDir = execFileSync('bash', [join(here, 'debian-source.sh'), 'python-xmltodict'], { encoding: 'utf8' }).trim();
const built = buildOfflineInstances({ sourceDir, outDir, python: process.env.DEBUG_GYM_PYTHON ?? 'python3', ...(baseImage ? { baseImage, namespace } : {}) });
console.log(`${built.rows.length} SWE-smith instances over ${built.repoDir}`);
console.log(`  local folder (any terminal): ${built.localJsonl}`);
console.log(`  image (Docker):              ${built.jsonl}${built.image ? ` (image ${built.image}; pass -p benchmark_options.namespace=${namespace})` : ' (no image: run with --image debug-gym/python-offline:bookworm to build one)'}`);
