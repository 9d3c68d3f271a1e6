import t from 'tap';
import fc from 'fast-check';
import { REDACTED, redactSecrets, redactUrl } from '@gsp/service-kit';

/** `secret` with each character written as it is (0), %XX (1), %xx (2) or encoded twice (3), as `plan` says. */
function encode(secret: string, plan: readonly number[]): string {
  return [...secret]
    .map((ch, i) => {
      const how = plan[i % plan.length] ?? 0;
      if (how === 0) return ch;
      return [...Buffer.from(ch)]
        .map((b) => b.toString(16).padStart(2, '0'))
        .map((hex) => (how === 1 ? `%${hex.toUpperCase()}` : how === 2 ? `%${hex}` : `%25${hex}`))
        .join('');
    })
    .join('');
}

/** `text` percent-decoded once, byte-wise (what a server or a reader would make of it). */
const decodeOnce = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%[0-9A-Fa-f]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
  }
};

t.test('a secret is redacted however it is percent-encoded, and the text around it is kept', async (t) => {
  const secret = fc.string({ unit: fc.constantFrom(...'abcXYZ0189-_.:~ é€😀'), minLength: 6, maxLength: 30 });
  const plan = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 });
  const around = fc.string({ unit: fc.constantFrom(...'/?=&qrs'), maxLength: 8 });
  fc.assert(
    fc.property(secret, plan, around, around, (s, p, before, after) => {
      const clean = redactSecrets(`${before}${encode(s, p)}${after}`, [s]);
      let view = clean;
      for (let i = 0; i < 3; i++, view = decodeOnce(view)) if (view.includes(s)) return false;
      return clean === `${before}${REDACTED}${after}`;
    }),
    { numRuns: 500 },
  );
  t.equal(redactSecrets('/games/gsp_s%33JQ/x', ['gsp_s3JQ']), `/games/${REDACTED}/x`, 'one character encoded');
  t.equal(redactSecrets('pw probe%2dbasic-pass-123', ['probe-basic-pass-123']), `pw ${REDACTED}`, 'lower-case hex');
  t.equal(redactSecrets('nothing here %zz', ['secret-value']), 'nothing here %zz', 'text without one is unchanged');
});

t.test('credential query values are redacted, their names read decoded and in any case', async (t) => {
  t.equal(
    redactUrl('/console/auth/callback?code=abc&state=xyz&returnTo=%2F'),
    `/console/auth/callback?code=${REDACTED}&state=${REDACTED}&returnTo=%2F`,
  );
  t.equal(
    redactUrl('/x?%6Bey=1&Access_Token=2&token=3&id_token=4&password&page=2'),
    `/x?%6Bey=${REDACTED}&Access_Token=${REDACTED}&token=${REDACTED}&id_token=${REDACTED}&password&page=2`,
  );
  t.equal(redactUrl('/plain/path'), '/plain/path');
});
