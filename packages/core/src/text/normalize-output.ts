// Hand scanners, not regular expressions: every tool's output (text the agent and the code under test
// print) passes through here on the server's event loop, so each function is one pass over its input,
// O(n) whatever the text (no backtracking, no rescanning from each introducer of an unterminated sequence).

const ESC = 0x1b;
const BEL = 0x07;
const ST_8BIT = 0x9c;
const CSI_8BIT = 0x9b;

/** 7-bit control-string introducers after ESC: OSC `]`, DCS `P`, SOS `X`, PM `^`, APC `_`. */
function isControlStringFinal(code: number): boolean {
  return code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f;
}

/** 8-bit control-string introducers: DCS, SOS, OSC, PM, APC. */
function isControlString8Bit(code: number): boolean {
  return code === 0x90 || code === 0x98 || code === 0x9d || code === 0x9e || code === 0x9f;
}

/**
 * Remembers where the next control-string terminator candidate (BEL, ESC or 8-bit ST) is, so that a
 * run of unterminated introducers (`\x90` × 90 000) costs one scan of the text, not one per introducer.
 */
class StopFinder {
  private found = -1;
  constructor(private readonly text: string) {}

  /** Index of the first BEL, ESC or 0x9c at or after `from`, or the text's length. */
  next(from: number): number {
    if (this.found >= from) return this.found;
    const { text } = this;
    let index = from;
    while (index < text.length) {
      const code = text.charCodeAt(index);
      if (code === BEL || code === ESC || code === ST_8BIT) break;
      index += 1;
    }
    this.found = index;
    return index;
  }
}

/**
 * The kept parts of a text, copied into one buffer. Not an array of slices joined at the end: a text of
 * a million short sequences would make a million small strings for the garbage collector, whose work
 * then grows faster than the text.
 */
class KeptText {
  private readonly codes: Uint16Array;
  private length = 0;
  constructor(private readonly text: string) {
    this.codes = new Uint16Array(text.length);
  }

  keep(from: number, to: number): void {
    const { codes, text } = this;
    for (let index = from; index < to; index += 1) codes[this.length++] = text.charCodeAt(index);
  }

  add(code: number, count = 1): void {
    for (let done = 0; done < count; done += 1) this.codes[this.length++] = code;
  }

  toString(): string {
    const chunks: string[] = [];
    for (let start = 0; start < this.length; start += 8192) {
      chunks.push(String.fromCharCode.apply(null, this.codes.subarray(start, Math.min(this.length, start + 8192)) as unknown as number[]));
    }
    return chunks.join('');
  }
}

/**
 * End (exclusive) of the control string whose body starts at `bodyStart`, or -1 when it is not
 * terminated: its body runs to the first BEL, ESC or ST, and must end there in BEL, ST or `ESC \`.
 */
function controlStringEnd(text: string, bodyStart: number, stops: StopFinder): number {
  const stop = stops.next(bodyStart);
  if (stop >= text.length) return -1;
  const code = text.charCodeAt(stop);
  if (code === BEL || code === ST_8BIT) return stop + 1;
  return text.charCodeAt(stop + 1) === 0x5c ? stop + 2 : -1;
}

/** End (exclusive) of a CSI whose parameters start at `from`: parameters 0x30–0x3f, intermediates 0x20–0x2f, a final 0x40–0x7e; -1 without a final. */
function csiEnd(text: string, from: number): number {
  let index = from;
  while (index < text.length && text.charCodeAt(index) >= 0x30 && text.charCodeAt(index) <= 0x3f) index += 1;
  while (index < text.length && text.charCodeAt(index) >= 0x20 && text.charCodeAt(index) <= 0x2f) index += 1;
  const final = text.charCodeAt(index);
  return final >= 0x40 && final <= 0x7e ? index + 1 : -1;
}

/** Length of the escape sequence at `index` (an ESC or an 8-bit introducer), or 0 when none starts there. */
function sequenceLength(text: string, index: number, stops: StopFinder): number {
  const code = text.charCodeAt(index);
  if (code === CSI_8BIT) {
    const end = csiEnd(text, index + 1);
    return end < 0 ? 0 : end - index;
  }
  if (isControlString8Bit(code)) {
    const end = controlStringEnd(text, index + 1, stops);
    return end < 0 ? 0 : end - index;
  }
  if (code !== ESC) return 0;
  const next = text.charCodeAt(index + 1);
  if (isControlStringFinal(next)) {
    const end = controlStringEnd(text, index + 2, stops);
    // Unterminated: only the introducer goes (the body is text; it must not swallow what follows).
    return end < 0 ? 2 : end - index;
  }
  if (next === 0x5b) {
    const end = csiEnd(text, index + 2);
    return end < 0 ? 2 : end - index;
  }
  // SS3 (`ESC O A`) when a final follows, else any other escape: intermediates 0x20–0x2f, one final 0x30–0x7e.
  if (next === 0x4f) {
    const final = text.charCodeAt(index + 2);
    return final >= 0x40 && final <= 0x7e ? 3 : 2;
  }
  let end = index + 1;
  while (end < text.length && text.charCodeAt(end) >= 0x20 && text.charCodeAt(end) <= 0x2f) end += 1;
  const final = text.charCodeAt(end);
  return final >= 0x30 && final <= 0x7e ? end + 1 - index : 0;
}

/**
 * Remove terminal escape sequences: CSI (also with intermediate bytes, `ESC [ 2 SP q`, and 8-bit
 * 0x9b), SS3 (`ESC O A`), control strings (OSC, DCS, SOS, PM, APC; 7-bit `ESC ]` and 8-bit 0x9d
 * forms, ended by BEL or ST — `ESC \` or 0x9c), and the other escapes (`ESC c`, `ESC 7`, `ESC ( 0`).
 * An unterminated control string or CSI loses only its introducer; a lone ESC or C1 character is
 * left for `normalizeOutput` to drop. One pass, linear in the text.
 */
export function stripAnsi(text: string): string {
  const stops = new StopFinder(text);
  let out: KeptText | null = null;
  let kept = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code !== ESC && code !== CSI_8BIT && !isControlString8Bit(code)) continue;
    const length = sequenceLength(text, index, stops);
    if (length === 0) continue;
    out ??= new KeptText(text);
    out.keep(kept, index);
    kept = index + length;
    index = kept - 1;
  }
  if (out === null) return text;
  out.keep(kept, text.length);
  return out.toString();
}

/** C0 (but tab and newline), DEL and C1: dropped. Carriage returns are handled before this. */
function isDroppedControl(code: number): boolean {
  return (code <= 0x1f && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);
}

/**
 * What the model sees: no escape sequences, `\r\n` (and `\r\r\n`) and lone `\r` turned into `\n`,
 * and no other control character (C0, DEL, C1) but tab and newline. Linear in the text.
 */
export function normalizeOutput(text: string): string {
  const stripped = stripAnsi(text);
  let out: KeptText | null = null;
  let kept = 0;
  for (let index = 0; index < stripped.length; index += 1) {
    const code = stripped.charCodeAt(index);
    if (!isDroppedControl(code)) continue;
    out ??= new KeptText(stripped);
    out.keep(kept, index);
    if (code === 0x0d) {
      let end = index;
      while (stripped.charCodeAt(end) === 0x0d) end += 1;
      // A run of `\r` before `\n` is one line break; a run elsewhere is one break per `\r`.
      if (stripped.charCodeAt(end) === 0x0a) {
        out.add(0x0a);
        end += 1;
      } else {
        out.add(0x0a, end - index);
      }
      kept = end;
      index = end - 1;
      continue;
    }
    kept = index + 1;
  }
  if (out === null) return stripped;
  out.keep(kept, stripped.length);
  return out.toString();
}
