export type FlagsClientErrorCode = 'ERR_FLAGS_OPTIONS' | 'ERR_FLAG_UNKNOWN' | 'ERR_FLAGS_CLOSED';

/** Errors the caller can switch on by `code`. Store failures never surface as errors. */
export class FlagsClientError extends Error {
  constructor(
    readonly code: FlagsClientErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FlagsClientError';
  }
}
