import t from 'tap';
import fc from 'fast-check';
import { signatureHeader, verifySignature } from '@gsp/audit-export';

const tolerance = 5 * 60_000;
const now = 1_790_000_000_000;
const body = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)),
);
const secret = fc.string({ minLength: 1, maxLength: 64 });

t.test('a signature made for a body verifies', (t) => {
  fc.assert(
    fc.property(body, secret, fc.integer({ min: -tolerance, max: tolerance }), (b, s, skew) =>
      verifySignature(signatureHeader(b, s, now + skew), b, s, tolerance, now),
    ),
  );
  t.end();
});

t.test('any change to the body, the secret or the timestamp fails verification', (t) => {
  fc.assert(
    fc.property(body, body, secret, secret, (b, other, s, otherSecret) => {
      const header = signatureHeader(b, s, now);
      const changedBody = Buffer.compare(Buffer.from(b), Buffer.from(other)) !== 0;
      if (changedBody && verifySignature(header, other, s, tolerance, now)) return false;
      if (otherSecret !== s && verifySignature(header, b, otherSecret, tolerance, now)) return false;
      return true;
    }),
  );
  fc.assert(
    fc.property(body, secret, fc.integer({ min: 1, max: 200 }), (b, s, shift) => {
      const header = signatureHeader(b, s, now);
      const t0 = Number(/t=(\d+)/.exec(header)?.[1]);
      return !verifySignature(header.replace(/t=\d+/, `t=${t0 + shift}`), b, s, tolerance, now);
    }),
  );
  t.end();
});

t.test('a timestamp outside the tolerance is refused, even with a right signature', (t) => {
  fc.assert(
    fc.property(
      body,
      secret,
      fc.integer({ min: tolerance + 1000, max: 10 * tolerance }),
      fc.boolean(),
      (b, s, skew, late) =>
        !verifySignature(signatureHeader(b, s, late ? now - skew : now + skew), b, s, tolerance, now),
    ),
  );
  t.end();
});

t.test('malformed headers are refused', (t) => {
  const good = signatureHeader('{}', 'k', now);
  const v1 = /v1=([0-9a-f]+)/.exec(good)?.[1] ?? '';
  const t0 = /t=(\d+)/.exec(good)?.[1] ?? '';
  for (const header of [
    undefined,
    '',
    'garbage',
    `v1=${v1}`,
    `t=${t0}`,
    `t=${t0},t=${t0},v1=${v1}`,
    `t=x,v1=${v1}`,
    `t=${t0},v1=${v1.slice(1)}`,
  ])
    t.notOk(verifySignature(header, '{}', 'k', tolerance, now), JSON.stringify(header));
  t.ok(
    verifySignature(`t=${t0},v1=${'0'.repeat(64)},v1=${v1}`, '{}', 'k', tolerance, now),
    'one matching v1 of several is enough',
  );
  t.end();
});
