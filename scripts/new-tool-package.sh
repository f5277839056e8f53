#!/usr/bin/env bash
# Scaffold packages/tool-<name>: ./scripts/new-tool-package.sh <name> "<one-line description>" [alias,...]
set -euo pipefail
name=$1; description=$2; aliases=${3:-}
dir=packages/tool-$name
mkdir -p "$dir/src" "$dir/test"
alias_json=""
if [ -n "$aliases" ]; then alias_json=", \"aliases\": [\"${aliases//,/\", \"}\"]"; fi
cat > "$dir/package.json" <<JSON
{
  "name": "@debug-gym/tool-$name",
  "version": "0.1.0",
  "description": "$description",
  "keywords": ["debug-gym", "debug-gym-plugin", "debug-gym-tool"],
  "license": "MIT",
  "type": "module",
  "sideEffects": false,
  "engines": { "node": ">=20.19" },
  "debug-gym": { "kind": "tool", "name": "$name"$alias_json },
  "exports": {
    ".": {
      "@debug-gym/source": "./src/index.ts",
      "types": "./dist/index.d.ts",
      "default": "./dist/index.js"
    },
    "./package.json": "./package.json"
  },
  "main": "./dist/index.js",
  "types": "./dist/index.d.ts",
  "files": ["dist"],
  "scripts": {
    "build": "tsup",
    "typecheck": "tsc --noEmit",
    "lint": "eslint src",
    "test": "vitest run",
    "test:coverage": "vitest run --coverage"
  },
  "peerDependencies": { "@debug-gym/core": "workspace:^" },
  "devDependencies": { "@debug-gym/core": "workspace:*", "@debug-gym/test-utils": "workspace:*" },
  "publishConfig": {
    "access": "public",
    "exports": { ".": { "types": "./dist/index.d.ts", "default": "./dist/index.js" }, "./package.json": "./package.json" }
  }
}
JSON
cp packages/core/tsconfig.json packages/core/tsup.config.ts "$dir/"
cat > "$dir/vitest.config.ts" <<'TS'
import { sharedTestConfig } from '../../vitest.shared';

export default sharedTestConfig({ coverageThreshold: 85, testTimeout: 60_000 });
TS
echo "export {};" > "$dir/src/index.ts"
