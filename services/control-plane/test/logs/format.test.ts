import t from 'tap';
import fc from 'fast-check';
import { LogFraming, MAX_EVENT_LINE, prefersEventStream } from '../../src/logs/format.js';

/** Writes `chunks` through a framing and returns what came out. */
async function framed(events: boolean, chunks: Buffer[], reason?: string): Promise<Buffer> {
  const framing = new LogFraming(events);
  const out: Buffer[] = [];
  framing.on('data', (chunk: Buffer | string) => out.push(Buffer.from(chunk)));
  const done = new Promise((resolve) => framing.on('end', resolve));
  for (const chunk of chunks) framing.write(chunk);
  if (reason === undefined) framing.end();
  else framing.finish(reason);
  await done;
  return Buffer.concat(out);
}

/** `bytes` cut at the given offsets, as a stream may deliver it (in the middle of a character too). */
function cut(bytes: Buffer, offsets: number[]): Buffer[] {
  const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const at of [...points, bytes.length]) {
    chunks.push(bytes.subarray(from, at));
    from = at;
  }
  return chunks;
}

/** The data of each event of an event stream, as a browser's EventSource parses it, and the `end` event's. */
function parseEvents(text: string): { data: string[]; end: string | undefined } {
  const data: string[] = [];
  let end: string | undefined;
  for (const block of text.split('\n\n').filter((b) => b !== '')) {
    const fields = block.split('\n');
    const value = (line: string) => line.slice(line.indexOf(':') + 2);
    if (fields[0] === 'event: end') end = value(fields[1] ?? '');
    else for (const field of fields) data.push(value(field));
  }
  return { data, end };
}

const line = fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => s.replace(/[\r\n]/g, ''));

t.test('plain text passes the log through byte for byte, however it is cut', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 200 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      async (bytes, offsets) => {
        const input = Buffer.from(bytes);
        const output = await framed(false, cut(input, offsets), 'whatever');
        return output.equals(input);
      },
    ),
  );
  t.pass();
});

t.test('events carry each line once, in order, whatever the chunking, and end with the reason', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(line, { minLength: 1, maxLength: 8 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.boolean(),
      async (lines, offsets, crlf) => {
        const input = Buffer.from(lines.map((l) => `${l}${crlf ? '\r\n' : '\n'}`).join(''));
        const { data, end } = parseEvents(
          (await framed(true, cut(input, offsets), 'game server deleted')).toString('utf8'),
        );
        return JSON.stringify(data) === JSON.stringify(lines) && end === 'game server deleted';
      },
    ),
    { numRuns: 200 },
  );
  t.pass();
});

t.test('a last line without its newline is still sent; the default reason is "end of log"', async (t) => {
  const out = (await framed(true, [Buffer.from('a\nb')])).toString();
  t.equal(out, 'data: a\n\ndata: b\n\nevent: end\ndata: end of log\n\n');
});

t.test('a carriage return inside a line cannot forge a field: it becomes a second event', async (t) => {
  const out = (await framed(true, [Buffer.from('x\revent: end\n')])).toString();
  t.equal(out, 'data: x\n\ndata: event: end\n\nevent: end\ndata: end of log\n\n');
});

t.test('a line without end is sent in pieces rather than held in memory', async (t) => {
  const framing = new LogFraming(true);
  const out: string[] = [];
  framing.on('data', (chunk: Buffer) => out.push(chunk.toString()));
  framing.write(Buffer.from('y'.repeat(MAX_EVENT_LINE + 1)));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(out.join(''), `data: ${'y'.repeat(MAX_EVENT_LINE + 1)}\n\n`, 'sent before any newline came');
  framing.destroy();
});

t.test('Accept: Server-Sent Events only when the client prefers them to plain text', async (t) => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['text/plain', false],
    ['text/event-stream', true],
    ['TEXT/EVENT-STREAM', true],
    ['text/event-stream, */*', true],
    ['text/event-stream, text/*', true],
    ['text/event-stream;q=0', false],
    ['text/event-stream;q=0.5, text/plain', false],
    ['text/plain;q=0.5, text/event-stream', true],
    ['text/plain, text/event-stream', false],
    ['text/*', false],
    ['application/json, text/event-stream;q=0.1', true],
    ['text/event-stream;q=abc', false],
    ['x/y;q=abc, text/event-stream', true],
  ];
  for (const [accept, expected] of cases) t.equal(prefersEventStream(accept), expected, `Accept: ${accept}`);
});

t.test('any Accept header is read without throwing', async (t) => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary', maxLength: 200 }),
      (accept) => typeof prefersEventStream(accept) === 'boolean',
    ),
  );
  t.pass();
});
