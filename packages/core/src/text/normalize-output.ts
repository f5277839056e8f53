import { stripVTControlCharacters } from 'node:util';

// Control strings (OSC, DCS, SOS, PM, APC) in their 7-bit (ESC ]) and 8-bit (0x9d) forms, ended by
// BEL or ST (ESC \\ or 0x9c); unterminated ones lose only their introducer. Node's stripVTControlCharacters
// leaves APC/PM bodies and the 8-bit forms behind.
const CONTROL_STRING = /(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)/g;
// CSI, also with intermediate bytes (`ESC [ 2 SP q`), and SS3 (`ESC O A`), which Node's pattern cuts short.
const CSI_SS3 = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|\u001bO[@-~]/g;
// Any other escape sequence (ECMA-35/48): ESC, intermediates, one final byte (`ESC c`, `ESC 7`, `ESC ( 0`).
const ESCAPE = /\u001b[ -/]*[0-~]/g;
// What is left of the C0 set (tab and newline stay), DEL and the C1 set.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Remove terminal escape sequences (CSI, OSC and the other control strings, single escapes, 8-bit
 * forms). Ours run first: Node's pattern reads `ESC 7 l` as one sequence and would eat the `l`.
 */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text.replace(CONTROL_STRING, '').replace(CSI_SS3, '').replace(ESCAPE, ''));
}

/**
 * What the model sees: no escape sequences, `\r\n` and lone `\r` turned into `\n`, and no other
 * control character (C0, DEL, C1) but tab and newline.
 */
export function normalizeOutput(text: string): string {
  return stripAnsi(text).replace(/\r+\n/g, '\n').replace(/\r/g, '\n').replace(CONTROL, '');
}
