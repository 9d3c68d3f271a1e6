import { PassThrough, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { Attach, Exec } from '@kubernetes/client-node';
import type { KubeConfig, V1Status } from '@kubernetes/client-node';
import { ActionTimeout, ClusterUnavailable, withRetryAfter } from '../errors.js';
import { CLUSTER_RETRY_AFTER_SECONDS, kubeStatusError } from './errors.js';

/** Where a command runs: a container of a pod. */
export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
}

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** True when stdout or stderr was cut at the output cap. */
  truncated: boolean;
  durationMs: number;
}

export interface RunOptions {
  /** The whole run, connection included; past it the stream is closed and ActionTimeout thrown. */
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; the rest is counted, not kept. */
  maxOutputBytes: number;
}

/** What an attached stream reports; neither is called after `AttachedStream.close()`. */
export interface AttachHandlers {
  /** Text the process wrote on stdout or stderr, decoded as UTF-8 (a sequence cut between chunks is kept whole). */
  output(text: string): void;
  /** The stream ended by itself: the process exited (`exited`) or the connection was lost (`lost`). Called once. */
  end(why: 'exited' | 'lost'): void;
}

/** A container's stdin and output, attached (Kubernetes `pods/attach`). */
export interface AttachedStream {
  /** Sends text to the process's stdin. */
  write(text: string): void;
  /** Detaches; the process goes on running. */
  close(): void;
}

/** Keeps the first `limit` bytes written to it. */
class CappedBuffer extends Writable {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  truncated = false;

  constructor(private readonly limit: number) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const room = this.limit - this.kept;
    if (chunk.length > room) this.truncated = true;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    callback();
  }

  text(): string {
    // A cut in the middle of a UTF-8 sequence leaves a replacement character, not an error.
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** The exit code a finished command's Status carries (Kubernetes' exec protocol, channel 3). */
export function exitCodeOf(status: V1Status): number {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : 1;
}

/** A refused exec or attach upgrade: ws reports `Unexpected server response: 404`. */
function connectError(err: unknown, what = 'run the command'): Error {
  const message = (err as { message?: unknown } | null)?.message;
  const status = typeof message === 'string' ? /Unexpected server response: (\d{3})/.exec(message)?.[1] : undefined;
  if (status !== undefined) return kubeStatusError(Number(status), '');
  return withRetryAfter(
    new ClusterUnavailable(`the Kubernetes API could not be reached to ${what}`),
    CLUSTER_RETRY_AFTER_SECONDS,
  );
}

/** The Kubernetes API did not open an exec or attach stream within `timeoutMs`: the request may be retried. */
function notOpened(stream: 'exec' | 'attach', timeoutMs: number): Error {
  const error = new ClusterUnavailable(
    `the Kubernetes API did not open the ${stream} stream within ${timeoutMs / 1000} s`,
  );
  return withRetryAfter(error, CLUSTER_RETRY_AFTER_SECONDS);
}

/** Hands each chunk to `output` as text; ends quietly (the exec protocol ends it when the status arrives). */
function textSink(output: (text: string) => void): Writable {
  const decoder = new StringDecoder('utf8');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = decoder.write(chunk);
      if (text !== '') output(text);
      callback();
    },
    final(callback) {
      const rest = decoder.end();
      if (rest !== '') output(rest);
      callback();
    },
  });
  // Output after the status (a misbehaving server) is a write after end: dropped, not a crash.
  sink.on('error', () => undefined);
  return sink;
}

/**
 * The one place that runs a command in a game server's container: argv is passed as separate
 * `command` parameters of the exec API, so no element ever passes through a shell. Used by
 * actions and snapshot hooks; the console attaches to the container with `attach`.
 */
export class CommandRunner {
  private readonly exec: Exec;
  private readonly attacher: Attach;

  constructor(
    kc: KubeConfig,
    private readonly connectTimeoutMs: number,
  ) {
    this.exec = new Exec(kc);
    this.attacher = new Attach(kc);
  }

  /**
   * Attaches to the container's stdin, stdout and stderr (no TTY). Connecting is bounded like a
   * command's: past the connect timeout it fails with ClusterUnavailable and a stream that opens
   * later is closed at once.
   */
  async attach(target: ExecTarget, handlers: AttachHandlers): Promise<AttachedStream> {
    let detached = false;
    let exited = false;
    const output = (text: string): void => {
      if (!detached) handlers.output(text);
    };
    const stdout = textSink(output);
    const stderr = textSink(output);
    // The status message (the process exited) ends both sinks before the socket closes.
    stdout.once('finish', () => (exited = true));
    const stdin = new PassThrough();
    const connecting = this.attacher.attach(
      target.namespace,
      target.pod,
      target.container,
      stdout,
      stderr,
      stdin,
      false,
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        detached = true;
        reject(notOpened('attach', this.connectTimeoutMs));
      }, this.connectTimeoutMs);
    });
    let ws: Awaited<typeof connecting>;
    try {
      ws = await Promise.race([
        connecting.catch((err: unknown) => Promise.reject(connectError(err, 'attach to the container'))),
        timeout,
      ]);
    } catch (err) {
      // Given up on while connecting: close the stream if it opens after all.
      connecting.then(
        (late) => late.close(),
        () => undefined,
      );
      throw err;
    } finally {
      clearTimeout(timer);
    }
    ws.on('close', () => {
      if (detached) return;
      detached = true;
      handlers.end(exited ? 'exited' : 'lost');
    });
    return {
      write: (text) => {
        if (!detached) stdin.write(text);
      },
      close: () => {
        detached = true;
        ws.close();
      },
    };
  }

  async run(target: ExecTarget, argv: readonly string[], options: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const stdout = new CappedBuffer(options.maxOutputBytes);
    const stderr = new CappedBuffer(options.maxOutputBytes);
    let socket: Awaited<ReturnType<Exec['exec']>> | undefined;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<V1Status | undefined>((resolve, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        socket?.close();
        reject(new ActionTimeout(`the command did not finish within ${options.timeoutMs / 1000} s and was stopped`));
      }, options.timeoutMs);
      let status: V1Status | undefined;
      const connectTimer = setTimeout(
        () => {
          if (socket === undefined && !timedOut) {
            timedOut = true;
            reject(notOpened('exec', this.connectTimeoutMs));
          }
        },
        Math.min(this.connectTimeoutMs, options.timeoutMs),
      );
      this.exec
        .exec(
          target.namespace,
          target.pod,
          target.container,
          [...argv],
          stdout,
          stderr,
          null,
          false,
          (s) => (status = s),
        )
        .then((ws) => {
          clearTimeout(connectTimer);
          // Given up on while connecting: close the stream it has just opened.
          if (timedOut) return void ws.close();
          socket = ws;
          ws.on('close', () => resolve(status));
          ws.on('error', () => resolve(status));
        })
        .catch((err: unknown) => {
          clearTimeout(connectTimer);
          if (!timedOut) reject(connectError(err));
        });
    });
    try {
      const status = await finished;
      if (status === undefined)
        throw withRetryAfter(
          new ClusterUnavailable('the exec stream closed before the command reported its exit status'),
          CLUSTER_RETRY_AFTER_SECONDS,
        );
      return {
        exitCode: exitCodeOf(status),
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Math.round(performance.now() - started),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}
