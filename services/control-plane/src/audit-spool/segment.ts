import { open, readFile, truncate } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * One segment file: `<first sequence, 16 digits>-<epoch>.seg`, one line per record,
 * `{"s":<sequence>,"t":<appended at, ms>,"r":<record>}`. A segment is written by one open of the
 * spool only (each open starts a new one), so the epoch in its name is the epoch of every id in it.
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

export interface Entry {
  seq: number;
  at: number;
  record: Record<string, unknown>;
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

export function formatLine(seq: number, at: number, record: Record<string, unknown>): string {
  return `{"s":${seq},"t":${at},"r":${JSON.stringify(record)}}\n`;
}

/** The record a line holds, or undefined when the line is not one the spool wrote (torn, or damaged on disk). */
export function parseLine(text: string): { seq: number; at: number; record: Record<string, unknown> } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { s, t, r } = parsed as { s?: unknown; t?: unknown; r?: unknown };
  if (!Number.isSafeInteger(s) || typeof t !== 'number' || r === null || typeof r !== 'object') return undefined;
  return { seq: s as number, at: t, record: r as Record<string, unknown> };
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

const CHUNK = 1024 * 1024;

/**
 * The records of one segment from `offset` up to its bytes as they are when each chunk is read
 * (the active segment grows while this runs). Every line below `segment.bytes` is complete, since
 * only this process appends and it counts a line once written whole.
 */
export async function* readSegment(segment: Segment, offset: number): AsyncGenerator<Entry> {
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
    let buffer = Buffer.allocUnsafe(Math.max(64 * 1024, Math.min(CHUNK, segment.bytes - offset)));
    while (offset < segment.bytes) {
      const want = Math.min(segment.bytes - offset, buffer.length);
      const { bytesRead } = await file.read(buffer, 0, want, offset);
      if (bytesRead === 0) break;
      let at = 0;
      for (;;) {
        const newline = buffer.indexOf(10, at);
        if (newline < 0 || newline >= bytesRead) break;
        const line = parseLine(buffer.toString('utf8', at, newline));
        // Lines were validated at open or written by this process: a bad one means the disk changed under us.
        if (!line) throw new Error(`audit spool: damaged line at ${offset + at} in ${segment.path}`);
        yield { ...line, segment, begin: offset + at, end: offset + newline + 1 };
        at = newline + 1;
      }
      // A line longer than the buffer: read it again into a larger one.
      if (at === 0) buffer = Buffer.allocUnsafe(buffer.length * 2);
      offset += at;
    }
  } finally {
    await file.close();
  }
}
