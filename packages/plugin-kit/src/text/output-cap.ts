/**
 * Keeps at most `limitBytes` of a byte stream and counts the rest, so a runaway print cannot
 * exhaust memory. The kept part is decoded as UTF-8 with replacement characters.
 */
export class OutputCap {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  constructor(private readonly limitBytes: number) {}

  push(chunk: Buffer | string): void {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const room = this.limitBytes - this.kept;
    if (room <= 0) {
      this.dropped += buffer.length;
      return;
    }
    if (buffer.length <= room) {
      this.chunks.push(buffer);
      this.kept += buffer.length;
      return;
    }
    this.chunks.push(buffer.subarray(0, room));
    this.kept += room;
    this.dropped += buffer.length - room;
  }

  get droppedBytes(): number {
    return this.dropped;
  }

  get keptBytes(): number {
    return this.kept;
  }

  /** Decoded text; when bytes were dropped, ends with a marker saying how many. */
  text(): string {
    const body = Buffer.concat(this.chunks).toString('utf8');
    return this.dropped > 0 ? `${body}${truncationMarker(this.dropped)}` : body;
  }
}

export function truncationMarker(droppedBytes: number): string {
  return `\n[... output truncated: ${droppedBytes} more bytes were dropped ...]`;
}

/** Trim a string for the model: keep the head and the tail, mark the middle. */
export function truncateMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const marker = `\n[... ${text.length - maxChars} characters truncated ...]\n`;
  const keep = Math.max(0, maxChars - marker.length);
  const head = Math.ceil(keep / 2);
  return text.slice(0, head) + marker + text.slice(text.length - (keep - head));
}
