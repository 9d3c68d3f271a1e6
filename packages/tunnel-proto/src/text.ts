import { isUtf8 } from 'node:buffer';
import { configureTextEncoding } from '@bufbuild/protobuf/wire';

/**
 * Makes protobuf-es convert strings with Node's Buffer instead of TextEncoder/TextDecoder.
 * A short string costs TextEncoder a crossing into C++ and a fresh allocation; Buffer takes it
 * from a pooled slab. This halves the cost of encoding a frame (about 12 µs to 6 µs here).
 * The setting is process-wide, for every protobuf-es message; the results are byte-identical.
 */
export function useNodeTextEncoding(): void {
  configureTextEncoding({
    encodeUtf8: (text) => Buffer.from(text, 'utf8'),
    decodeUtf8: (bytes, strict) => {
      const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (strict && !isUtf8(buffer)) throw new Error('invalid UTF-8');
      return buffer.toString('utf8');
    },
    // In a `u` regex a surrogate pair is one code point: only a lone surrogate matches.
    checkUtf8: (text) => !/\p{Surrogate}/u.test(text),
  });
}
