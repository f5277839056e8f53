export { grepTool as default, grepTool, createGrep, type GrepToolOptions } from './grep-tool.js';
export { collectFiles, GlobError, SKIPPED_DIRECTORIES, type CollectLimits, type Collected, type FileSource, type SearchTarget } from './collect-files.js';
export { compileGlob, scanGlob, MAX_GLOB_LENGTH, type CompiledGlob, type GlobMatcher, type ScannedGlob } from './glob.js';
export { compileGrepPattern, patternErrorMessage, translateEre, MAX_PATTERN_LENGTH, type CompiledPattern } from './grep-pattern.js';
export { formatMatches, noMatchesText, MAX_LINE_CHARS, type FileMatches } from './format-grep.js';
export { checkPattern, matchLines, matchTexts, MatchTimeoutError, PatternSyntaxError, type LineMatch } from './line-matcher.js';
export { searchFiles, type SearchOptions, type SearchOutcome } from './search-files.js';
