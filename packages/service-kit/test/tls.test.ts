import t from 'tap';
import fc from 'fast-check';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { derInteger } from '../src/tls.js';

/** Reads back a DER INTEGER with a short length, as OpenSSL would, refusing a non-minimal form. */
function readInteger(der: Buffer): bigint | 'not minimal' {
  const body = der.subarray(2, 2 + (der[1] as number));
  if (
    body.length > 1 &&
    ((body[0] === 0 && ((body[1] as number) & 0x80) === 0) || (body[0] === 0xff && ((body[1] as number) & 0x80) !== 0))
  )
    return 'not minimal';
  return BigInt(`0x${body.toString('hex')}`);
}

t.test('an INTEGER is encoded in its one minimal DER form and keeps its value', async (t) => {
  const failures: string[] = [];
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 20 }), (bytes) => {
      const encoded = derInteger(bytes);
      const value = BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
      const read = readInteger(encoded);
      if (encoded[0] !== 0x02 || read !== value) failures.push(Buffer.from(bytes).toString('hex'));
    }),
    { numRuns: 2000 },
  );
  t.same(failures, [], 'every byte string round-trips without padding');
  t.same([...derInteger(Buffer.from([0, 0, 0x7f]))], [0x02, 0x01, 0x7f]);
  t.same([...derInteger(Buffer.from([0x80]))], [0x02, 0x02, 0x00, 0x80]);
  t.same([...derInteger(Buffer.from([0, 0]))], [0x02, 0x01, 0x00]);
});

t.test('every generated certificate loads: a serial starting with zero bytes used to break one in ~256', async (t) => {
  let broken = 0;
  let firstError = '';
  for (let i = 0; i < 1500; i += 1) {
    const { cert, key } = generateSelfSignedCertificate('gsp-test');
    try {
      const x509 = new X509Certificate(cert);
      createSecureContext({ cert, key });
      if (!x509.checkHost('localhost') || !x509.checkIP('127.0.0.1')) throw new Error('names missing');
    } catch (err) {
      broken += 1;
      firstError ||= (err as Error).message;
    }
  }
  t.equal(broken, 0, `certificates that failed to load (first: ${firstError || 'none'})`);
});
