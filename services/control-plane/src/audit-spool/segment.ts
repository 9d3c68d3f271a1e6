import { open, readFile, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One segment file: `<first sequence, 16 digits>-<epoch>.seg`, one line per record,
 * `{"s":<sequence>,"t":<time, ms>,"k":<kind, optional>,"r":<record>}`. A segment is written by one
 * open of the spool only (each open starts a new one), so the epoch in its name is the epoch of
 * every id in it. Readers take the record as the text it was written as (its JSON), found after
 * the fixed head, so shipping a record needs no parse and no new serialisation.
 */
export interface Segment {
  readonly start: number;
  readonly epoch: string;
  readonly path: string;
  /** Bytes of complete lines. */
  bytes: number;
  /** Sequence of the last record, `start - 1` while empty. */
  last: number;
}

/** A line as written: its record still JSON text. */
export interface Line {
  seq: number;
  at: number;
  kind: string | undefined;
  /** The record's JSON text (an object). */
  json: string;
}

export interface Entry extends Line {
  segment: Segment;
  /** Offset of the line's first byte and of the byte after its newline. */
  begin: number;
  end: number;
}

const NAME = /^(\d{16})-([0-9a-z]{1,16})\.seg$/;

export function segmentName(start: number, epoch: string): string {
  return `${String(start).padStart(16, '0')}-${epoch}.seg`;
}

export function parseSegmentName(dir: string, name: string): Segment | undefined {
  const match = NAME.exec(name);
  if (!match) return undefined;
  const start = Number(match[1]);
  return { start, epoch: match[2] as string, path: join(dir, name), bytes: 0, last: start - 1 };
}

/** What a segment line holds before its record's JSON text, which is followed by `LINE_END`. */
export function lineHead(seq: number, at: number, kind?: string): string {
  return kind === undefined ? `{"s":${seq},"t":${at},"r":` : `{"s":${seq},"t":${at},"k":${JSON.stringify(kind)},"r":`;
}

export const LINE_END = '}\n';

/** A segment line, newline included; `json` is the record's JSON text, `kind` a label readers get back. */
export function formatLine(seq: number, at: number, json: string, kind?: string): string {
  return lineHead(seq, at, kind) + json + LINE_END;
}

/**
 * The record a line holds, or undefined when the line is not one the spool wrote (torn, or damaged
 * on disk). Parses it whole: used where lines are checked (at open), not where they are shipped.
 */
export function parseLine(text: string): Line | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  const { s, t, k, r } = parsed as { s?: unknown; t?: unknown; k?: unknown; r?: unknown };
  if (!Number.isSafeInteger(s) || typeof t !== 'number' || r === null || typeof r !== 'object' || Array.isArray(r))
    return undefined;
  if (k !== undefined && typeof k !== 'string') return undefined;
  return { seq: s as number, at: t, kind: k, json: JSON.stringify(r) };
}

/** The head `formatLine` writes (a kind without escapes); anything else is parsed whole. */
const HEAD = /^\{"s":(\d{1,16}),"t":(\d{1,16})(?:,"k":"([^"\\]*)")?,"r":(?=\{)/;

/**
 * A line this process or a checked segment holds (complete, valid JSON): its head read by pattern
 * and its record cut out as text, with a whole parse only for a line of another shape.
 */
export function readLine(text: string): Line | undefined {
  const head = HEAD.exec(text);
  if (!head || text.charCodeAt(text.length - 1) !== 0x7d) return parseLine(text);
  return {
    seq: Number(head[1]),
    at: Number(head[2]),
    kind: head[3],
    json: text.slice(head[0].length, -1),
  };
}

/**
 * Reads a segment left by an earlier process and cuts it after its last good line: a crash in the
 * middle of a write leaves a line without its newline, which is never handed to a reader. Returns
 * how many bytes were cut.
 */
export async function recoverSegment(segment: Segment): Promise<number> {
  const data = await readFile(segment.path);
  let offset = 0;
  let last = segment.start - 1;
  for (;;) {
    const newline = data.indexOf(10, offset);
    if (newline < 0) break;
    const line = parseLine(data.toString('utf8', offset, newline));
    if (!line || line.seq <= last) break;
    last = line.seq;
    offset = newline + 1;
  }
  if (offset < data.length) await truncate(segment.path, offset);
  segment.bytes = offset;
  segment.last = last;
  return data.length - offset;
}

const FIRST_CHUNK = 64 * 1024;
const CHUNK = 1024 * 1024;

/**
 * The records of one segment from `offset` up to its bytes as they are when each chunk is read
 * (the active segment grows while this runs), a chunk's worth at a time. Every line below
 * `segment.bytes` is complete, since only this process appends and it counts a line once written
 * whole.
 */
export async function* readSegment(segment: Segment, offset: number): AsyncGenerator<Entry[]> {
  if (offset >= segment.bytes) return;
  let file: FileHandle;
  try {
    file = await open(segment.path, 'r');
  } catch (error) {
    // Deleted since the caller found it: every reader had acknowledged it, so nothing is missed.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    // Small first (a reader takes a batch, not the segment), then larger while it goes on.
    let buffer = Buffer.allocUnsafe(Math.min(FIRST_CHUNK, segment.bytes - offset));
    while (offset < segment.bytes) {
      const want = Math.min(segment.bytes - offset, buffer.length);
      const { bytesRead } = await file.read(buffer, 0, want, offset);
      if (bytesRead === 0) break;
      let at = 0;
      const entries: Entry[] = [];
      for (;;) {
        const newline = buffer.indexOf(10, at);
        if (newline < 0 || newline >= bytesRead) break;
        const line = readLine(buffer.toString('utf8', at, newline));
        // Lines were validated at open or written by this process: a bad one means the disk changed under us.
        if (!line) throw new Error(`audit spool: damaged line at ${offset + at} in ${segment.path}`);
        entries.push({
          seq: line.seq,
          at: line.at,
          kind: line.kind,
          json: line.json,
          segment,
          begin: offset + at,
          end: offset + newline + 1,
        });
        at = newline + 1;
      }
      if (entries.length > 0) yield entries;
      // A line longer than the buffer: read it again into a larger one. Otherwise the next chunk
      // doubles, up to CHUNK.
      if (at === 0) buffer = Buffer.allocUnsafe(buffer.length * 2);
      else if (buffer.length < CHUNK) buffer = Buffer.allocUnsafe(Math.min(buffer.length * 2, CHUNK));
      offset += at;
    }
  } finally {
    await file.close();
  }
}
