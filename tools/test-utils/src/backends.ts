import { SandboxUnavailableError, type Terminal } from '@debug-gym/core';
import { BubblewrapTerminal, DockerTerminal, LocalTerminal } from '@debug-gym/terminal';

export type BackendName = 'local' | 'bubblewrap' | 'docker';

export interface Backend {
  name: BackendName;
  /** A new, not yet started terminal of this kind. */
  create(): Terminal;
}

/** The interpreter tests run: CI pins `/usr/bin/python3`; a developer's `python3` may be another build. */
export const testPython: string = process.env.DEBUG_GYM_PYTHON ?? 'python3';
export const testDockerImage: string = process.env.DEBUG_GYM_DOCKER_IMAGE ?? 'debug-gym/python-offline:bookworm';

function factory(name: BackendName): () => Terminal {
  switch (name) {
    case 'docker':
      return () => new DockerTerminal({ image: testDockerImage, python: 'python3' });
    case 'bubblewrap':
      return () => new BubblewrapTerminal({ python: testPython });
    default:
      return () => new LocalTerminal({ python: testPython });
  }
}

/** The local backend, whatever the tier selects: for suites that test the local terminal itself. */
export const localBackend: Backend = { name: 'local', create: factory('local') };

const availability = new Map<BackendName, Promise<string | null>>();

/** Null when the backend works here, else why not. */
function probe(name: BackendName): Promise<string | null> {
  let pending = availability.get(name);
  if (!pending) {
    pending = (async () => {
      const terminal = factory(name)();
      try {
        await terminal.start();
        return null;
      } catch (error) {
        if (SandboxUnavailableError.isInstance(error)) return error.message;
        return `${(error as Error).name}: ${(error as Error).message}`;
      } finally {
        await terminal.close().catch(() => undefined);
      }
    })();
    availability.set(name, pending);
  }
  return pending;
}

/**
 * The backends to run a shared behaviour suite against: `DEBUG_GYM_TEST_BACKENDS` (comma list) or all
 * three. An unavailable sandbox is skipped with a loud warning, unless `DEBUG_GYM_REQUIRE_SANDBOXES=1`
 * (CI), where it is an error.
 */
export async function availableBackends(): Promise<Backend[]> {
  const wanted = (process.env.DEBUG_GYM_TEST_BACKENDS ?? 'local,bubblewrap,docker').split(',').map((name) => name.trim()) as BackendName[];
  const backends: Backend[] = [];
  for (const name of wanted) {
    const problem = name === 'local' ? null : await probe(name);
    if (problem === null) {
      backends.push({ name, create: factory(name) });
      continue;
    }
    if (process.env.DEBUG_GYM_REQUIRE_SANDBOXES === '1') {
      throw new Error(`The ${name} backend is required (DEBUG_GYM_REQUIRE_SANDBOXES=1) but unavailable: ${problem}`);
    }
    console.warn(`\n*** SKIPPING the ${name} backend: ${problem}\n*** (set DEBUG_GYM_REQUIRE_SANDBOXES=1 to make this an error)\n`);
  }
  return backends;
}
