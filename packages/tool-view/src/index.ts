export { viewTool as default, viewTool } from './view-plugin.js';
export { DEFAULT_MAX_FILE_BYTES, viewFile, type ViewArguments, type ViewOptions } from './view-file.js';
export { annotateLines, formatView, lineNumberWidth, splitLines, type ViewHeader } from './format-view.js';
export { selectRange, type RangeSelection } from './select-range.js';
