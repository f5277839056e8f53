/** The terminal backends the suite measures, how to build them, and whether they work here. */
import type { Terminal } from '@debug-gym/core';
import { createTerminal } from '@debug-gym/terminal';

export const BACKENDS = ['local', 'bubblewrap', 'docker'] as const;
export type BackendName = (typeof BACKENDS)[number];

export interface BackendSettings {
  /** Host interpreter for local and bubblewrap (`DEBUG_GYM_PYTHON`, else `python3`). */
  python: string;
  /** Image and interpreter of the Docker sandboxes. */
  dockerImage: string;
  dockerPython: string;
}

export function defaultBackendSettings(env: NodeJS.ProcessEnv = process.env): BackendSettings {
  return {
    python: env.DEBUG_GYM_PYTHON ?? 'python3',
    dockerImage: env.DEBUG_GYM_DOCKER_IMAGE ?? 'debug-gym/python-offline:bookworm',
    dockerPython: env.DEBUG_GYM_DOCKER_PYTHON ?? 'python3',
  };
}

/** A new, not yet started terminal of this kind (`zygote: false`: a local one starts its own fork server). */
export function makeTerminal(name: BackendName, settings: BackendSettings, options: { zygote?: boolean } = {}): Promise<Terminal> {
  if (name === 'docker') return createTerminal({ type: 'docker', image: settings.dockerImage, python: settings.dockerPython });
  if (name === 'local') return createTerminal({ type: name, python: settings.python, ...(options.zygote === false ? { forkZygote: false } : {}) });
  return createTerminal({ type: name, python: settings.python });
}

/**
 * Local only: start the process's zygote (local-zygote.ts) and wait for it, as the first local
 * episodes of any long-running process do; later local terminals fork their server from it (it is
 * closed after 10 s unused: the suites keep it busy).
 */
export async function warmZygote(name: BackendName, settings: BackendSettings): Promise<void> {
  if (name !== 'local') return;
  // The second local terminal of a kind starts its zygote; one whose server came from it says it is warm.
  for (let index = 0; index < 3; index++) {
    const terminal = (await makeTerminal(name, settings)) as Terminal & { zygoteReady?: () => Promise<boolean>; forkServerOrigin?: object };
    try {
      await terminal.start();
      await terminal.startForkServer?.();
      if (terminal.forkServerOrigin && 'zygote' in terminal.forkServerOrigin) return;
      await terminal.zygoteReady?.();
    } finally {
      await terminal.close();
    }
  }
}

/** The interpreter a backend's sandboxes run. */
export function backendPython(name: BackendName, settings: BackendSettings): string {
  return name === 'docker' ? settings.dockerPython : settings.python;
}

export type ProbeResult = { ok: true; version: string } | { ok: false; reason: string };

/** Can the backend start a sandbox whose Python has pytest? With that Python's path and versions. */
export async function probeBackend(name: BackendName, settings: BackendSettings): Promise<ProbeResult> {
  let terminal: Terminal | undefined;
  try {
    terminal = await makeTerminal(name, settings);
    await terminal.start();
    const result = await terminal.run(
      `${terminal.python} -c "import sys, pytest; print(sys.executable, sys.version.split()[0], 'pytest', pytest.__version__)"`,
      { timeoutMs: 60_000 },
    );
    if (result.exitCode !== 0) return { ok: false, reason: `its Python (${terminal.python}) cannot import pytest: ${result.output.trim().slice(0, 300)}` };
    return { ok: true, version: result.output.trim() };
  } catch (error) {
    return { ok: false, reason: `${(error as Error).name}: ${(error as Error).message}`.slice(0, 500) };
  } finally {
    await terminal?.close().catch(() => undefined);
  }
}
