/** One input line, or the news that a line was longer than the limit (its bytes were dropped unread). */
export type InputLine = { line: string } | { tooLong: true; bytes: number };

const NEWLINE = 0x0a;

/**
 * Split a byte stream into lines without ever holding more than `maxBytes` of one line: a longer
 * line is dropped as it streams in and reported once its end arrives (or the input ends).
 */
export async function* readLines(input: AsyncIterable<Buffer | string>, maxBytes: number): AsyncGenerator<InputLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let dropped = 0;
  const finish = (): InputLine => {
    const result: InputLine = dropped > 0 ? { tooLong: true, bytes: dropped + held } : { line: stripCr(Buffer.concat(parts, held).toString('utf8')) };
    parts = [];
    held = 0;
    dropped = 0;
    return result;
  };
  const take = (piece: Buffer): void => {
    if (dropped > 0 || held + piece.length > maxBytes) {
      dropped += held + piece.length;
      parts = [];
      held = 0;
      return;
    }
    parts.push(piece);
    held += piece.length;
  };
  for await (const chunk of input) {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE)) {
      take(data.subarray(0, end));
      yield finish();
      data = data.subarray(end + 1);
    }
    if (data.length > 0) take(Buffer.from(data));
  }
  if (held > 0 || dropped > 0) yield finish();
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
