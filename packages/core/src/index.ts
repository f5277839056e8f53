// The plugin contract and the plugin authors' helpers, re-exported so core's public API is unchanged.
export * from '@debug-gym/spec';
export * from '@debug-gym/plugin-kit';
export * from './bench/index.js';
export * from './env/index.js';
export * from './scoring/index.js';
export * from './text/index.js';
export * from './workspace/index.js';
export { VERSION } from './version.js';
