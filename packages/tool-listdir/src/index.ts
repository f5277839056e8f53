export { listdirTool as default, listdirTool } from './listdir-plugin.js';
export { DEFAULT_MAX_ENTRIES, MAX_DEPTH, listDirectory, type ListdirArguments, type ListdirOptions } from './list-directory.js';
