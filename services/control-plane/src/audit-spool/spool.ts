import { closeSync, fdatasync, fdatasyncSync, ftruncateSync, openSync, writeSync, close as closeFd } from 'node:fs';
import { mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readPosition, writeAtomically } from './files.js';
import { LINE_END, lineHead, parseSegmentName, readSegment, recoverSegment, segmentName } from './segment.js';
import type { Entry, Segment } from './segment.js';

export interface SpoolOptions {
  /** AUDIT_SPOOL_DIR */
  dir: string;
  /** AUDIT_SPOOL_MAX_BYTES: bytes of all segments on disk. */
  maxBytes: number;
  /**
   * AUDIT_SPOOL_FULL. `drop`: a full spool refuses appends (each counted in `dropped`). `block`: the
   * caller refuses new work while `isFull`, and the spool takes the records of work it already let
   * in, past the bound: nothing is dropped.
   */
  full: 'block' | 'drop';
  /** Roll to a new segment file past this (default 8 MiB; at most an eighth of `maxBytes` is used). */
  segmentBytes?: number;
  /** Sink names ('webhook', 'otlp'): each reads at its own position. */
  readers: readonly string[];
  /** How often appended bytes are flushed to the device (fdatasync), default 1000 ms; 0 flushes in every append. */
  syncIntervalMs?: number;
}

export type AppendResult = { ok: true; id: string } | { ok: false; reason: 'full' };

/** What a record is appended with besides itself, given back to its readers. */
export interface AppendMeta {
  /** The record's time (ms since the epoch), `appendedAt` to readers; default now. */
  at?: number;
  /** A label for readers (the export's event type). */
  kind?: string;
}

/** A record as a reader gets it: its JSON text as appended, parsed only if `record` is asked for. */
export class SpooledRecord {
  constructor(
    readonly id: string,
    readonly appendedAt: number,
    readonly kind: string | undefined,
    /** The record's JSON text. */
    readonly json: string,
  ) {}

  get record(): Record<string, unknown> {
    return JSON.parse(this.json) as Record<string, unknown>;
  }
}

/** Called once the records appended before it was registered are in the OS, or could not be written. */
export type WrittenCallback = (error?: Error) => void;

/** Where a reader reads next: a segment (by its first sequence, as segments come and go) and an offset in it. */
interface Cursor {
  start: number;
  offset: number;
}

interface Reader {
  readonly name: string;
  readonly positionPath: string;
  /** Last acknowledged sequence. */
  acked: number;
  /** The line of sequence `acked + 1`, or the end of the spool. */
  cursor: Cursor;
  /** When the record after `acked` was appended, if there is one. */
  nextAt: number | undefined;
  /** The entries the last read returned, so that an ack of one of them needs no reading. */
  lastRead: Entry[];
  /** Acks run one after the other. */
  acking: Promise<void>;
}

/**
 * A line appended and not yet written: its head, its bytes, and the entry readers will get (with its record's
 * JSON).
 */
interface Pending {
  head: string;
  size: number;
  entry: Entry;
}

/** Bytes of recent lines kept in memory for readers close behind the writer. */
const TAIL_BYTES = 4 * 1024 * 1024;
const READER_NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const ID = /^([0-9a-z]{1,16})-(\d{1,16})$/;
const DEFAULT_SEGMENT_BYTES = 8 * 1024 * 1024;
const fdatasyncAsync = promisify(fdatasync);
const closeAsync = promisify(closeFd);

export class SpoolClosedError extends Error {
  readonly code = 'SPOOL_CLOSED';
}

/**
 * A durable, bounded queue of audit records on local disk, read by several sinks at their own
 * pace: one log of segment files and one acknowledged position per reader, as Kafka keeps consumer
 * offsets. The lines appended in one turn of the event loop reach the OS in one write (group
 * commit), and `whenWritten` tells when: a caller that waits for it before answering loses nothing
 * to a SIGKILL that it answered ok. A segment is deleted once every reader has acknowledged all of
 * it. The bound counts every segment on disk, so the slowest reader decides when the spool is full.
 */
export class Spool {
  private readonly segments: Segment[];
  private active: Segment;
  private fd: number;
  /** The last sequence written to the OS, and the last one given out (written at the next flush). */
  private lastSeq: number;
  private queuedSeq: number;
  private total: number;
  /** Lines appended since the last flush, their bytes, the first one's time, and who waits for them. */
  private pending: Pending[] = [];
  private pendingBytes = 0;
  /**
   * The lines written lately, as readers get them (from `tailStart` on), so that a reader close
   * behind the writer, the usual case, reads no file: at most TAIL_BYTES of lines, none that
   * every reader has passed.
   */
  private tail: Entry[] = [];
  private tailStart = 0;
  private tailBytes = 0;
  /** Callbacks waiting for the write of the record with sequence `seq` and those before it. */
  private written: { seq: number; done: WrittenCallback }[] = [];
  private flushScheduled = false;
  private droppedCount = 0;
  private appends = 0;
  private dirty = false;
  private closed = false;
  private syncing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly readers: Map<string, Reader>;
  private readonly segmentBytes: number;

  private constructor(
    private readonly options: SpoolOptions,
    private readonly epoch: string,
    segments: Segment[],
    readers: Map<string, Reader>,
    lastSeq: number,
  ) {
    this.segments = segments;
    this.readers = readers;
    this.lastSeq = lastSeq;
    this.queuedSeq = lastSeq;
    this.total = segments.reduce((sum, s) => sum + s.bytes, 0);
    this.segmentBytes = Math.max(1, Math.min(options.segmentBytes ?? DEFAULT_SEGMENT_BYTES, options.maxBytes / 8));
    const { segment, fd } = this.createSegment();
    this.active = segment;
    this.fd = fd;
    const interval = options.syncIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => this.flush(), interval);
      this.timer.unref();
    }
  }

  /** Creates the directory if needed, cuts a torn last line, and recovers every reader's acknowledged position. */
  static async open(options: SpoolOptions): Promise<Spool> {
    checkOptions(options);
    await mkdir(options.dir, { recursive: true });
    let segments: Segment[] = [];
    for (const name of await readdir(options.dir)) {
      const segment = parseSegmentName(options.dir, name);
      if (segment) segments.push(segment);
    }
    segments.sort((a, b) => a.start - b.start);
    let lastSeq = 0;
    let lastEpoch = 0;
    for (const segment of segments) {
      await recoverSegment(segment);
      lastSeq = Math.max(lastSeq, segment.last);
      lastEpoch = Math.max(lastEpoch, parseInt(segment.epoch, 36));
    }
    // An empty segment (the last one written, just rolled) would share its first sequence with the
    // new one; it goes once the new one exists, so the directory always shows the last epoch.
    const empty = segments.filter((s) => s.bytes === 0);
    segments = segments.filter((s) => s.bytes > 0);
    const positions = new Map<string, number | undefined>();
    for (const name of options.readers) {
      const acked = await readPosition(join(options.dir, `${name}.pos`));
      positions.set(name, acked);
      // Positions are synced, appends only every second: after a power cut a position may be ahead of the data.
      if (acked !== undefined) lastSeq = Math.max(lastSeq, acked);
    }
    // A new epoch per open: ids stay unique even if a power cut lost the last unsynced records.
    const epoch = Math.max(Date.now(), lastEpoch + 1).toString(36);
    const first = segments[0]?.start ?? lastSeq + 1;
    const readers = new Map<string, Reader>();
    for (const name of options.readers) {
      const acked = positions.get(name) ?? Math.min(first, lastSeq + 1) - 1;
      readers.set(name, {
        name,
        positionPath: join(options.dir, `${name}.pos`),
        acked,
        cursor: { start: lastSeq + 1, offset: 0 },
        nextAt: undefined,
        lastRead: [],
        acking: Promise.resolve(),
      });
    }
    const spool = new Spool(options, epoch, segments, readers, lastSeq);
    for (const segment of empty) await unlink(segment.path);
    for (const reader of readers.values()) {
      reader.cursor = await spool.seek(reader.acked + 1);
      reader.nextAt = await spool.peek(reader.cursor);
    }
    await spool.deletePassed();
    return spool;
  }

  /**
   * Appends one record and returns its id. The line reaches the OS (and survives the process) with
   * the others appended in the same turn of the event loop, in one write (group commit): call
   * `whenWritten` to know when. Reads, acks and `close` write what is pending first.
   */
  append(record: object, meta: AppendMeta = {}): AppendResult {
    if (this.closed) throw new SpoolClosedError('the audit spool is closed');
    if (this.isFull && this.options.full === 'drop') return this.refuse();
    const seq = ++this.queuedSeq;
    const at = meta.at ?? Date.now();
    const json = JSON.stringify(record);
    const head = lineHead(seq, at, meta.kind);
    // The line is put together only in the write, its parts joined once there.
    const size = Buffer.byteLength(head) + Buffer.byteLength(json) + LINE_END.length;
    this.pending.push({
      head,
      size,
      entry: { seq, at, kind: meta.kind, json, segment: this.active, begin: 0, end: 0 },
    });
    this.pendingBytes += size;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(this.flushPending);
    }
    return { ok: true, id: `${this.epoch}-${seq}` };
  }

  /**
   * Calls `done` once every record appended so far is in the OS (at once if they are), or with the error that lost
   * them.
   */
  whenWritten(done: WrittenCallback): void {
    if (this.pending.length === 0) done();
    else this.written.push({ seq: this.queuedSeq, done });
  }

  /** Whether the bound is reached: `drop` refuses appends, and under `block` the request path answers 503. */
  get isFull(): boolean {
    return this.total + this.pendingBytes >= this.options.maxBytes;
  }

  /** Bytes of all segments on disk, and of the lines about to be written. */
  get bytes(): number {
    return this.total + this.pendingBytes;
  }

  /** Records refused since open with full='drop', and records lost to a failed write there. */
  get dropped(): number {
    return this.droppedCount;
  }

  /**
   * Up to `max` records after `reader`'s acknowledged position, oldest first. With `wait`, resolves
   * once there is at least one (with [] when the spool closes); an aborted `signal` rejects with its reason.
   */
  async read(
    reader: string,
    max: number,
    options: { wait?: boolean; signal?: AbortSignal } = {},
  ): Promise<SpooledRecord[]> {
    const state = this.reader(reader);
    this.writePending();
    for (;;) {
      options.signal?.throwIfAborted();
      const appends = this.appends;
      const entries: Entry[] = (max > 0 && this.fromTail(state.acked + 1, max)) || [];
      if (max > 0 && entries.length === 0 && state.acked < this.lastSeq) {
        scan: for await (const chunk of this.scan(state.cursor))
          for (const entry of chunk) {
            if (entry.seq <= state.acked) continue;
            entries.push(entry);
            if (entries.length >= max) break scan;
          }
      }
      if (entries.length > 0 || !options.wait || this.closed || max <= 0) {
        state.lastRead = entries;
        return entries.map((e) => new SpooledRecord(`${e.segment.epoch}-${e.seq}`, e.at, e.kind, e.json));
      }
      // Something appended while the files were read: read again rather than wait.
      if (this.appends !== appends) continue;
      await this.appended(options.signal);
    }
  }

  /** Marks everything up to and including `id` delivered for `reader`, persisted before this resolves. */
  async ack(reader: string, id: string): Promise<void> {
    const state = this.reader(reader);
    const seq = parseId(id);
    this.writePending();
    if (seq > this.lastSeq) throw new RangeError(`audit spool: ${id} was never appended`);
    const done = state.acking.then(() => this.advance(state, seq));
    state.acking = done.catch(() => undefined);
    return done;
  }

  /** Undelivered records for `reader` and how long ago the oldest was appended. */
  backlog(reader: string): { records: number; oldestMs: number | undefined } {
    const state = this.reader(reader);
    this.writePending();
    const records = Math.max(0, this.lastSeq - state.acked);
    const oldestMs = records > 0 && state.nextAt !== undefined ? Math.max(0, Date.now() - state.nextAt) : undefined;
    return { records, oldestMs };
  }

  /** Writes a poison batch to `<dir>/poison/<reader>-<first id>.ndjson` with the reason, then acknowledges it. */
  async quarantine(reader: string, records: readonly SpooledRecord[], reason: string): Promise<void> {
    this.reader(reader);
    const first = records[0];
    if (!first) return;
    let last = first;
    for (const r of records) if (parseId(r.id) > parseId(last.id)) last = r;
    const dir = join(this.options.dir, 'poison');
    await mkdir(dir, { recursive: true });
    const head = JSON.stringify({ reader, reason, quarantinedAt: new Date().toISOString(), records: records.length });
    const lines = records.map((r) => `{"id":${JSON.stringify(r.id)},"record":${r.json}}`);
    await writeAtomically(join(dir, `${reader}-${first.id}.ndjson`), [head, ...lines].join('\n') + '\n');
    await this.ack(reader, last.id);
  }

  /** Waits for acks under way, flushes the segment to the device and closes it; pending waiting reads get []. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.writePending();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const wake of this.waiters) wake();
    this.waiters.clear();
    await Promise.all([...this.readers.values()].map((r) => r.acking));
    const fd = this.fd;
    await this.syncing;
    await fdatasyncAsync(fd);
    await closeAsync(fd);
  }

  private readonly flushPending = (): void => {
    this.flushScheduled = false;
    if (!this.closed) this.writePending();
  };

  /**
   * Writes the pending lines, in one write per segment they fill (a segment rolls after the line
   * that takes it past its size, as if each line were written alone). On failure the lines not yet
   * written are not kept (the file is cut back to its last whole line, their sequences are given
   * out again) and the callbacks waiting for them get the error; with `drop` they count as dropped.
   */
  private writePending(): void {
    const lines = this.pending;
    if (lines.length === 0) return;
    const callbacks = this.written;
    let at: number | undefined = lines[0]?.entry.at;
    this.pending = [];
    this.pendingBytes = 0;
    this.written = [];
    for (let from = 0; from < lines.length;) {
      // The lines up to and including the one that fills the active segment.
      let to = from;
      let bytes = 0;
      while (to < lines.length) {
        bytes += (lines[to] as Pending).size;
        to++;
        if (this.active.bytes + bytes >= this.segmentBytes) break;
      }
      let text = '';
      for (let i = from; i < to; i++) {
        const { head, entry } = lines[i] as Pending;
        text += head;
        text += entry.json;
        text += LINE_END;
      }
      try {
        writeText(this.fd, text);
        if (this.options.syncIntervalMs === 0) fdatasyncSync(this.fd);
      } catch (error) {
        // Leave no partial line behind for the next write to follow.
        ftruncateSync(this.fd, this.active.bytes);
        const lost = lines.length - from;
        this.queuedSeq = this.lastSeq;
        if (this.options.full === 'drop') this.droppedCount += lost;
        this.wake();
        for (const callback of callbacks)
          if (callback.seq <= this.lastSeq) callback.done();
          else callback.done(error as Error);
        return;
      }
      if (at !== undefined)
        for (const reader of this.readers.values()) if (reader.acked === this.lastSeq) reader.nextAt = at;
      at = undefined;
      let offset = this.active.bytes;
      for (let i = from; i < to; i++) {
        const { entry, size } = lines[i] as Pending;
        entry.segment = this.active;
        entry.begin = offset;
        offset += size;
        entry.end = offset;
        this.tail.push(entry);
        this.tailBytes += size;
      }
      this.trimTail(-1);
      this.lastSeq += to - from;
      this.active.last = this.lastSeq;
      this.active.bytes += bytes;
      this.total += bytes;
      this.dirty = true;
      this.appends++;
      if (this.active.bytes >= this.segmentBytes) this.roll();
      from = to;
    }
    this.wake();
    for (const callback of callbacks) callback.done();
  }

  /** Drops from the tail the lines every reader has passed (up to sequence `passed`) and those past its bound. */
  private trimTail(passed: number): void {
    const tail = this.tail;
    let start = this.tailStart;
    while (start < tail.length) {
      const first = tail[start] as Entry;
      if (first.seq > passed && this.tailBytes <= TAIL_BYTES) break;
      this.tailBytes -= first.end - first.begin;
      start++;
    }
    // Compacted once the dropped part is the larger: each entry is moved at most once on average.
    if (start > 1024 && start * 2 > tail.length) {
      this.tail = tail.slice(start);
      start = 0;
    }
    this.tailStart = start;
  }

  /** Up to `max` lines from sequence `seq` on, from the tail; undefined when `seq` is older than the tail. */
  private fromTail(seq: number, max: number): Entry[] | undefined {
    const first = this.tail[this.tailStart];
    if (!first || seq < first.seq) return undefined;
    const index = this.tailStart + (seq - first.seq);
    return this.tail.slice(index, index + max);
  }

  private wake(): void {
    if (this.waiters.size === 0) return;
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  private reader(name: string): Reader {
    const state = this.readers.get(name);
    if (!state) throw new RangeError(`audit spool: no reader named ${JSON.stringify(name)}`);
    return state;
  }

  private refuse(): AppendResult {
    this.droppedCount++;
    return { ok: false, reason: 'full' };
  }

  /** Opens a new segment file for appends (throws, changing nothing, if the file cannot be made). */
  private createSegment(): { segment: Segment; fd: number } {
    const start = this.lastSeq + 1;
    const path = join(this.options.dir, segmentName(start, this.epoch));
    const fd = openSync(path, 'a');
    const segment: Segment = { start, epoch: this.epoch, path, bytes: 0, last: start - 1 };
    this.segments.push(segment);
    return { segment, fd };
  }

  /** Starts a new segment; the old one is flushed and closed in the background. */
  private roll(): void {
    let next: { segment: Segment; fd: number };
    try {
      next = this.createSegment();
    } catch {
      // The record is written; the segment grows past its size and the next append tries again.
      return;
    }
    const old = this.fd;
    this.active = next.segment;
    this.fd = next.fd;
    this.sync(old, true);
  }

  private flush(): void {
    if (!this.dirty) return;
    this.dirty = false;
    this.sync(this.fd, false);
  }

  private sync(fd: number, thenClose: boolean): void {
    this.syncing = this.syncing
      .then(() => fdatasyncAsync(fd))
      .then(() => (thenClose ? closeAsync(fd) : undefined))
      .catch(() => {
        // A failed flush leaves the data in the OS, where a later flush or the kernel writes it.
        if (thenClose) closeSync(fd);
      });
  }

  private appended(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const wake = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        this.waiters.delete(wake);
        reject(signal?.reason as Error);
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }

  /** The segment a cursor is in, or (after that one was deleted) the next one, at its start. */
  private locate(cursor: Cursor): Cursor | undefined {
    for (const segment of this.segments) {
      if (segment.start === cursor.start) return cursor;
      if (segment.start > cursor.start) return { start: segment.start, offset: 0 };
    }
    return undefined;
  }

  /** Every record from `from` to the end of the spool, a chunk at a time, across segments, as far as it is written. */
  private async *scan(from: Cursor): AsyncGenerator<Entry[]> {
    let cursor = this.locate(from);
    while (cursor) {
      const start = cursor.start;
      const segment = this.segments.find((s) => s.start === start);
      if (!segment) break;
      let offset = cursor.offset;
      for await (const chunk of readSegment(segment, offset)) {
        offset = (chunk.at(-1) as Entry).end;
        yield chunk;
      }
      const deleted = !this.segments.includes(segment);
      // Appended to (and perhaps rolled) while the file was being closed: read the rest first.
      if (offset < segment.bytes && !deleted) cursor = { start, offset };
      else if (segment === this.active) break;
      else {
        const next = this.segments.find((s) => s.start > start);
        cursor = next && { start: next.start, offset: 0 };
      }
    }
  }

  /** The cursor of the first record with a sequence of at least `seq`, or of the end. */
  private async seek(seq: number): Promise<Cursor> {
    let from: Cursor = { start: (this.segments[0] as Segment).start, offset: 0 };
    for (const segment of this.segments) if (segment.start <= seq) from = { start: segment.start, offset: 0 };
    for await (const chunk of this.scan(from))
      for (const entry of chunk) if (entry.seq >= seq) return { start: entry.segment.start, offset: entry.begin };
    return { start: this.active.start, offset: this.active.bytes };
  }

  private async peek(cursor: Cursor): Promise<number | undefined> {
    for await (const chunk of this.scan(cursor)) return chunk[0]?.at;
    return undefined;
  }

  private async advance(state: Reader, seq: number): Promise<void> {
    if (seq <= state.acked) return;
    const index = state.lastRead.findIndex((e) => e.seq === seq);
    const read = state.lastRead[index];
    let cursor: Cursor;
    let nextAt: number | undefined;
    if (read) {
      cursor = { start: read.segment.start, offset: read.end };
      nextAt = state.lastRead[index + 1]?.at;
    } else {
      const inTail = this.fromTail(seq, 1)?.[0];
      cursor = inTail ? { start: inTail.segment.start, offset: inTail.end } : await this.seek(seq + 1);
    }
    await writeAtomically(state.positionPath, JSON.stringify({ seq, id: `${this.epoch}-${seq}` }) + '\n');
    // A record appended while the position was written is not seen by `append` as this reader's next: look.
    for (let appends = -1; nextAt === undefined && appends !== this.appends;) {
      appends = this.appends;
      nextAt = this.fromTail(seq + 1, 1)?.[0]?.at ?? (seq < this.lastSeq ? await this.peek(cursor) : undefined);
    }
    state.acked = seq;
    state.cursor = cursor;
    state.nextAt = nextAt;
    state.lastRead = state.lastRead.slice(index + 1);
    let passed = Infinity;
    for (const reader of this.readers.values()) passed = Math.min(passed, reader.acked);
    this.trimTail(passed);
    await this.deletePassed();
  }

  /**
   * Deletes the segments every reader has acknowledged whole. The segment being written is never
   * one, and needs not be: it stays under an eighth of the bound, so a spool whose readers have
   * acknowledged everything is never full.
   */
  private async deletePassed(): Promise<void> {
    let passed = Infinity;
    for (const reader of this.readers.values()) passed = Math.min(passed, reader.acked);
    while (this.segments.length > 1) {
      const oldest = this.segments[0] as Segment;
      if (oldest === this.active || oldest.last > passed) break;
      this.segments.shift();
      this.total -= oldest.bytes;
      await unlink(oldest.path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }
}

function writeText(fd: number, text: string): number {
  let written = writeSync(fd, text);
  const size = Buffer.byteLength(text);
  if (written < size) {
    const buffer = Buffer.from(text);
    while (written < size) written += writeSync(fd, buffer, written);
  }
  return written;
}

function parseId(id: string): number {
  const match = ID.exec(id);
  if (!match) throw new RangeError(`audit spool: ${JSON.stringify(id)} is not a spool id`);
  return Number(match[2]);
}

function checkOptions(options: SpoolOptions): void {
  if (!Number.isSafeInteger(options.maxBytes) || options.maxBytes <= 0) {
    throw new RangeError('audit spool: maxBytes must be a positive integer');
  }
  if (options.full !== 'block' && options.full !== 'drop')
    throw new RangeError("audit spool: full is 'block' or 'drop'");
  if (options.segmentBytes !== undefined && !(options.segmentBytes > 0)) {
    throw new RangeError('audit spool: segmentBytes must be positive');
  }
  if (options.readers.length === 0) throw new RangeError('audit spool: at least one reader');
  for (const name of options.readers) {
    if (!READER_NAME.test(name))
      throw new RangeError(`audit spool: reader name ${JSON.stringify(name)} is not [a-z][a-z0-9_-]*`);
  }
  if (new Set(options.readers).size !== options.readers.length)
    throw new RangeError('audit spool: reader names repeat');
}
