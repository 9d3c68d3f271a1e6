/**
 * A self-signed certificate for 127.0.0.1/localhost, built with node:crypto and a tiny DER
 * encoder (no openssl needed). It is its own CA, so a kubeconfig can trust it directly.
 * kube-lite serves it with `--tls`; the cluster proxy uses it when no TLS_CERT_FILE is given.
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  while (n > 0) {
    bytes.unshift(n & 0xff);
    n >>= 8;
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const seq = (...items: Buffer[]): Buffer => tlv(0x30, ...items);
const set = (...items: Buffer[]): Buffer => tlv(0x31, ...items);

/**
 * A non-negative INTEGER from its big-endian bytes, in DER's one allowed form: no leading zero
 * byte unless the next byte's high bit would otherwise make the number negative. OpenSSL refuses
 * anything else ("illegal padding"), so a random serial starting with 0x00 once broke one
 * certificate in about 256.
 */
export function derInteger(bytes: Uint8Array): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const digits = Buffer.from(bytes.subarray(start));
  if (digits.length === 0) return tlv(0x02, Buffer.from([0]));
  return tlv(0x02, (digits[0] as number) & 0x80 ? Buffer.concat([Buffer.from([0]), digits]) : digits);
}
const bitString = (bytes: Buffer, unused = 0): Buffer => tlv(0x03, Buffer.from([unused]), bytes);
const octetString = (bytes: Buffer): Buffer => tlv(0x04, bytes);
const utf8 = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
const bool = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0]));
const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 + n, inner);

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes: number[] = [(parts[0] as number) * 40 + (parts[1] as number)];
  for (const part of parts.slice(2)) {
    const chunk: number[] = [part & 0x7f];
    let rest = part >> 7;
    while (rest > 0) {
      chunk.unshift((rest & 0x7f) | 0x80);
      rest >>= 7;
    }
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const fields = [
    date.getUTCFullYear() % 100,
    date.getUTCMonth() + 1,
    date.getUTCDate(),
    date.getUTCHours(),
    date.getUTCMinutes(),
    date.getUTCSeconds(),
  ];
  const text = `${fields.map(pad).join('')}Z`;
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  critical ? seq(oid(id), bool(true), octetString(value)) : seq(oid(id), octetString(value));

export interface Certificate {
  cert: string;
  key: string;
}

export function generateSelfSignedCertificate(
  commonName: string,
  hosts: string[] = ['localhost'],
  ips: string[] = ['127.0.0.1'],
): Certificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), utf8(commonName))));
  const now = Date.now();
  const altNames = seq(
    ...hosts.map((h) => tlv(0x82, Buffer.from(h, 'ascii'))),
    ...ips.map((ip) => tlv(0x87, Buffer.from(ip.split('.').map(Number)))),
  );
  const extensions = seq(
    extension('2.5.29.19', true, seq(bool(true))),
    extension('2.5.29.15', true, bitString(Buffer.from([0x84]), 2)),
    extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
    extension('2.5.29.17', false, altNames),
  );
  const serial = randomBytes(16);
  const tbs = seq(
    explicit(0, derInteger(Buffer.from([2]))),
    derInteger(serial),
    ecdsaWithSha256,
    name,
    seq(time(new Date(now - 3600_000)), time(new Date(now + 10 * 365 * 24 * 3600_000))),
    name,
    spki,
    explicit(3, extensions),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = seq(tbs, ecdsaWithSha256, bitString(signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  const key = createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })).export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;
  return { cert: pem, key };
}
