export type { Breakpoint, ToolBreakpoints } from './breakpoints.js';
export type { EnvSettings, EnvState, ToolContext } from './tool-context.js';
export type { ResolvedPath, ToolWorkspace, TreeEntry, TreeListing } from './workspace.js';
