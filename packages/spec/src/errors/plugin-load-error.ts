import { DebugGymError, type DebugGymErrorOptions } from './debug-gym-error.js';

/** A plugin (tool or benchmark) could not be found, imported, or has the wrong shape. */
export class PluginLoadError extends DebugGymError {
  readonly specifier: string;
  constructor(specifier: string, message: string, options?: DebugGymErrorOptions & { kind?: 'tool' | 'benchmark' | 'synth'; code?: string }) {
    super(options?.code ?? 'DG_PLUGIN_LOAD_FAILED', `Could not load ${options?.kind ?? 'tool'} plugin '${specifier}': ${message}`, options);
    this.specifier = specifier;
  }
}

/** The package's `"debug-gym"` manifest and the plugin's code disagree (kind, name, aliases, package name or version). */
export class PluginManifestError extends PluginLoadError {
  constructor(specifier: string, message: string, options?: DebugGymErrorOptions & { kind?: 'tool' | 'benchmark' | 'synth' }) {
    super(specifier, message, { ...options, code: 'DG_PLUGIN_MANIFEST_MISMATCH' });
  }
}

/** The plugin was written against a spec version this host cannot run. */
export class SpecVersionError extends PluginLoadError {
  /** The spec version the plugin declares (`meta.specVersion`). */
  readonly pluginSpecVersion: string;
  /** The spec version of the host that loads it (`SPEC_VERSION`). */
  readonly hostSpecVersion: string;
  constructor(specifier: string, pluginSpecVersion: string, hostSpecVersion: string, advice: string, options?: DebugGymErrorOptions & { kind?: 'tool' | 'benchmark' | 'synth' }) {
    super(specifier, `it was written against plugin spec ${pluginSpecVersion}, this debug-gym implements spec ${hostSpecVersion}. ${advice}`, {
      ...options,
      code: 'DG_PLUGIN_SPEC_INCOMPATIBLE',
    });
    this.pluginSpecVersion = pluginSpecVersion;
    this.hostSpecVersion = hostSpecVersion;
  }
}

/** Two tools registered under the same name. */
export class DuplicateToolError extends DebugGymError {
  constructor(name: string) {
    super('DG_TOOL_DUPLICATE', `Tool '${name}' already exists! Remove it first or give the second one another name.`);
  }
}
