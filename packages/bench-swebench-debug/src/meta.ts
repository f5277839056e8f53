import type { PluginMeta } from '@debug-gym/spec';
import { name, version } from '../package.json';

/**
 * This package as the plugin loader checks it: name and version come from package.json (inlined at
 * build time), `specVersion` is the @debug-gym/spec contract this code was written against.
 */
export const meta: PluginMeta = { name, version, specVersion: '1.0' };
