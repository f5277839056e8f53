export { normalizeOutput, stripAnsi } from './normalize-output.js';
export { OutputCap, truncateMiddle, truncationMarker } from './output-cap.js';
export { splitShellWords } from './shell-words.js';
