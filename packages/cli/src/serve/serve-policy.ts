import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultCacheDir } from '@debug-gym/plugin-kit';
import type { EnvFactoryOptions } from '@debug-gym/server';
import { BENCHMARK_PACKAGES } from '../bench/load-benchmark.js';
import { BUNDLED_TOOLS } from '../bundled-tools.js';
import type { ServePolicyOptions } from '../commands/serve-http.js';
import { ConfigError } from '../config/config-error.js';
import { cliTaskResolver } from './task-resolver.js';

/**
 * The env factory options of both `serve` transports: the CLI's bundled tools and benchmarks, and
 * what clients may name (installed plugins by name; paths and packages only as the operator allows,
 * with a loud warning for `--allow-plugin-paths`; repositories inside `--repo-root`).
 */
export function servePolicy(options: ServePolicyOptions, cwd: string, warn: (text: string) => void = (text) => void process.stderr.write(`${text}\n`)): EnvFactoryOptions {
  if (options.allowPluginPaths) {
    warn(
      'debug-gym: WARNING: --allow-plugin-paths: clients may name any file or package as a tool or benchmark, and this server will import it ON THIS HOST, ' +
        'outside every sandbox, as the user running it. Anyone holding the token (or reaching stdin) can run code here. Use --allow-plugin NAME for the plugins you mean instead.',
    );
  }
  const roots = (options.repoRoot ?? []).map((root) => resolve(cwd, root));
  for (const root of roots) if (!existsSync(root) || !statSync(root).isDirectory()) throw new ConfigError(`--repo-root ${root} is not a folder: give the folder clients' repositories live in.`);
  return {
    tools: BUNDLED_TOOLS,
    benchmarkNames: Object.keys(BENCHMARK_PACKAGES),
    resolveTask: cliTaskResolver({ from: cwd }),
    pluginsFrom: cwd,
    plugins: { ...(options.allowPlugin ? { allow: options.allowPlugin } : {}), ...(options.allowPluginPaths ? { allowPaths: true } : {}) },
    ...(roots.length > 0 ? { repoRoots: roots, taskRoots: [defaultCacheDir()] } : {}),
    ...(options.allowBenchmarkOptions ? { allowBenchmarkOptions: true } : {}),
  };
}
