export type { Breakpoint, ToolBreakpoints } from './breakpoints.js';
export type { EmitOptions, EnvSettings, EnvState, ToolContext } from './tool-context.js';
export type { ResolvedPath, ToolWorkspace, TreeEntry, TreeListing } from './workspace.js';
