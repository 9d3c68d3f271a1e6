import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { ConfigError } from '@gsp/service-kit';

/**
 * `AUDIT_LOG_FILE`: the audit lines appended to a file instead of written to standard output
 * (`npm start` keeps them out of its console this way). Each line is written at once, as standard
 * output writes to a file or a pipe, so none waits in memory when the process exits after its
 * close. The file is created readable by its owner only (the lines name users and their
 * addresses), its directory with it.
 */
export class AuditLogFile extends Writable {
  private constructor(private readonly fd: number) {
    super();
  }

  /** Opens `path` for appending; one that cannot be is the configuration error of AUDIT_LOG_FILE. */
  static open(path: string): AuditLogFile {
    try {
      mkdirSync(dirname(path), { recursive: true });
      return new AuditLogFile(openSync(path, 'a', 0o600));
    } catch (err) {
      throw new ConfigError('AUDIT_LOG_FILE', `${path} cannot be opened for appending: ${(err as Error).message}`);
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    try {
      for (let written = 0; written < chunk.length;) written += writeSync(this.fd, chunk, written);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    try {
      closeSync(this.fd);
    } catch {
      // Closed already, or never to be closed: nothing more to write either way.
    }
    callback(error);
  }
}
