export { grepTool as default, grepTool, createGrep, type GrepToolOptions } from './grep-tool.js';
export { collectFiles, SKIPPED_DIRECTORIES, type CollectLimits, type Collected, type FileSource, type SearchTarget } from './collect-files.js';
export { compileGrepPattern, translateEre, type CompiledPattern } from './grep-pattern.js';
export { formatMatches, noMatchesText, MAX_LINE_CHARS, type FileMatches } from './format-grep.js';
export { matchLines, matchTexts, MatchTimeoutError, type LineMatch } from './line-matcher.js';
export { searchFiles, type SearchOptions, type SearchOutcome } from './search-files.js';
