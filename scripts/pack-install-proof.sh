#!/usr/bin/env bash
# `pnpm check:install`: prove the packages work as published, outside this workspace.
#   1. build, and `pnpm pack` every public package under packages/ (publishConfig applied) into a temp dir;
#   2. copy examples/tool-word-count to a temp folder outside the workspace, install its dev dependencies
#      with npm (the @debug-gym/* ones from the tarballs, the rest from the registry), build, typecheck,
#      test and pack it there;
#   3. create a temp project, `npm install` the CLI, every other tarball and the plugin's tarball;
#   4. run the packed CLI: `npx debug-gym demo` from an empty temp folder, and `debug-gym run` on a config
#      that lists `tools: [view, word-count]`, which loads the plugin by name from the config's folder.
# Outside the workspace only npm runs (pnpm is taken off PATH). Exits non-zero on any failure.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)
work=$(mktemp -d /tmp/debug-gym-install-proof-XXXXXX)
keep=${DEBUG_GYM_KEEP_PROOF:-0}
cleanup() { if [ "$keep" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
say() { printf '\n--- check:install: %s (%ss)\n' "$1" "$(($(date +%s) - started))"; }
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false npm_config_loglevel=error

say "build"
(cd "$repo" && pnpm turbo run build --output-logs=errors-only >/dev/null)

say "pack every public package under packages/ into $work/tarballs"
mkdir -p "$work/tarballs"
# name<TAB>folder of every public workspace package under packages/
pnpm -C "$repo" ls -r --depth -1 --json | node -e '
  const all = JSON.parse(require("fs").readFileSync(0, "utf8"));
  for (const pkg of all) if (!pkg.private && pkg.path.startsWith(process.argv[1] + "/packages/")) console.log(pkg.name + "\t" + pkg.path);
' "$repo" >"$work/packages.tsv"
while IFS=$'\t' read -r name dir; do
  tarball=$(cd "$dir" && pnpm pack --pack-destination "$work/tarballs" --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).filename)')
  printf '%s\t%s\n' "$name" "$tarball" >>"$work/tarballs.tsv"
done <"$work/packages.tsv"
echo "$(wc -l <"$work/tarballs.tsv") tarballs: $(cut -f2 "$work/tarballs.tsv" | xargs -n1 basename | tr '\n' ' ')"

# From here on: no pnpm, as on a third party's machine.
PATH=$(bash "$repo/scripts/lib/path-without-pnpm.sh")
export PATH
if command -v pnpm >/dev/null; then echo "pnpm is still on PATH" >&2; exit 1; fi

# Point a package.json's @debug-gym/* dependencies at the tarballs (what the registry would serve), and
# override every other @debug-gym/* package, so transitive ones resolve to the tarballs as well.
use_tarballs() {
  node - "$1" "$work/tarballs.tsv" <<'NODE'
const fs = require('fs');
const [file, list] = process.argv.slice(2);
const tarballs = Object.fromEntries(fs.readFileSync(list, 'utf8').trim().split('\n').map((line) => line.split('\t')).map(([name, path]) => [name, `file:${path}`]));
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
const direct = new Set();
for (const field of ['dependencies', 'devDependencies']) {
  for (const name of Object.keys(pkg[field] ?? {})) {
    if (!name.startsWith('@debug-gym/')) continue;
    if (!tarballs[name]) throw new Error(`${file}: ${field}.${name} has no tarball`);
    pkg[field][name] = tarballs[name];
    direct.add(name);
  }
}
pkg.overrides = Object.fromEntries(Object.entries(tarballs).filter(([name]) => !direct.has(name)));
fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + '\n');
NODE
}

say "the example plugin, copied out of the repository: npm install, build, typecheck, test, pack"
plugin="$work/my-plugin"
mkdir -p "$plugin"
(cd "$repo/examples/tool-word-count" && tar --exclude=node_modules --exclude=dist --exclude=coverage --exclude=test-results.json -cf - .) | tar -xf - -C "$plugin"
use_tarballs "$plugin/package.json"
(
  cd "$plugin"
  npm install --no-package-lock
  npm run build
  npm run typecheck
  npm test
  npm pack --pack-destination "$work" --silent >"$work/plugin-tarball.txt"
)
plugin_tarball="$work/$(tail -n1 "$work/plugin-tarball.txt")"

say "a project outside the workspace: npm install the CLI, every tarball and the plugin"
project="$work/project"
mkdir -p "$project"
node -e '
  const fs = require("fs");
  const lines = fs.readFileSync(process.argv[1], "utf8").trim().split("\n").map((line) => line.split("\t"));
  const dependencies = Object.fromEntries(lines.map(([name, path]) => [name, "file:" + path]));
  dependencies["debug-gym-tool-word-count"] = "file:" + process.argv[2];
  fs.writeFileSync(process.argv[3], JSON.stringify({ name: "proof-project", private: true, type: "module", dependencies }, null, 2));
' "$work/tarballs.tsv" "$plugin_tarball" "$project/package.json"
(cd "$project" && npm install)
# Every @debug-gym/* package in the tree must be one of the tarballs, none from the registry.
node -e '
  const lock = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const entries = Object.entries(lock.packages).filter(([path]) => /node_modules\/@debug-gym\//.test(path));
  const foreign = entries.filter(([, entry]) => !String(entry.resolved ?? "").startsWith("file:"));
  console.log(`${entries.length} @debug-gym/* packages installed, all from the tarballs: ${foreign.length === 0}`);
  if (foreign.length) { console.error(foreign); process.exit(1); }
' "$project/package-lock.json"

say "the packed CLI: npx debug-gym demo from an empty temp folder"
empty="$work/somewhere-else"
mkdir -p "$empty"
# `npx --prefix` finds the bin in the project and runs it here: the demo's files must come from the package.
(cd "$empty" && npx --prefix "$project" --no -- debug-gym --version && npx --prefix "$project" --no -- debug-gym demo) >"$work/demo.log" 2>&1 || { cat "$work/demo.log"; echo "debug-gym demo failed" >&2; exit 1; }
grep -F 'debug-gym demo:' "$work/demo.log"
grep -F 'result: score' "$work/demo.log"

say "the packed CLI loads the plugin by name: debug-gym run with tools: [view, word-count]"
mkdir -p "$project/repo"
printf 'def main():\n    return 41\n' >"$project/repo/app.py"
printf 'from app import main\n\n\ndef test_main():\n    assert main() == 42\n' >"$project/repo/test_app.py"
cat >"$project/word-count-session.json" <<'JSON'
{ "steps": [{ "name": "word_count", "arguments": { "path": "app.py" } }] }
JSON
cat >"$project/config.yaml" <<'YAML'
base:
  env: { path: repo, entrypoint: python -m pytest -sq ., terminate_on_resolved: false }
  terminal: { type: local }
  replay: word-count-session.json
  max_steps: 1
  output_path: exps
debug_agent:
  tools: [view, word-count]
YAML
# An unresolved task (41 is not 42), so the scripted agent takes its one step: word_count, loaded by name.
(cd "$project" && npx --no -- debug-gym run config.yaml --agent debug_agent -vv) >"$work/run.log" 2>&1 || { cat "$work/run.log"; echo "debug-gym run failed" >&2; exit 1; }
grep -F 'app.py: 2 lines, 4 words, 26 characters' "$work/run.log" || { cat "$work/run.log"; echo "the word_count tool did not answer through the packed CLI" >&2; exit 1; }

say "done: packed, installed outside the workspace, plugin built and tested, demo and plugin run from the packed CLI"
