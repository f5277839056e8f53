/**
 * The version of the plugin contract this package defines, `major.minor`. A plugin declares the
 * spec version it was written against (`meta.specVersion`); the loader accepts it when the majors
 * are equal and the plugin's minor is not newer than the host's (a newer minor may rely on
 * context members this host does not provide). Bumped with the contract, not with the package.
 */
export const SPEC_VERSION = '1.0';

/** A `major.minor` spec version, e.g. `'1.0'`. */
export type SpecVersion = `${number}.${number}`;

/** Who a plugin is: checked by the loader against the package it was loaded from. */
export interface PluginMeta {
  /** The npm package the plugin ships in, e.g. `@debug-gym/tool-pdb` (=== package.json `name`). */
  readonly name: string;
  /** The plugin package's version (=== package.json `version`; inline it at build time). */
  readonly version: string;
  /**
   * The spec version the plugin was written against. Write the literal (`'1.0'`): importing
   * `SPEC_VERSION` would read the host's copy of the spec at run time and always match.
   */
  readonly specVersion: SpecVersion;
}

/** The `"debug-gym"` field of a plugin package's package.json: what the loader reads before importing. */
export interface PluginManifest {
  kind: PluginKind;
  /** The tool name (`pdb`), benchmark name (`aider`) or synth generator name (`ast`) the code must declare. */
  name: string;
  /** Other names of a tool (`edit` for `rewrite`); must equal the plugin's `aliases`. */
  aliases?: string[];
}

/** What a plugin package provides. */
export type PluginKind = 'tool' | 'benchmark' | 'synth';
