import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import fc from 'fast-check';
import { generateSelfSignedCertificate } from '@gsp/service-kit';
import { checkRefusals, refusedVariable } from '@gsp/service-kit/testing/config';
import { auditExportConfig, createSinks, parseOtlpHeaders } from '@gsp/audit-export';

const load = (env: NodeJS.ProcessEnv) => auditExportConfig(env);

t.test('with nothing set there is no sink and the defaults hold', (t) => {
  const config = auditExportConfig({});
  t.same(config, { timeoutMs: 10_000, batchMax: 400, backoff: { baseMs: 200, maxMs: 30_000 } });
  t.same(createSinks(config, { service: 'control-plane', replica: 'cp-0' }), []);
  t.end();
});

t.test('both sinks are built from their variables, secrets read from files', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-export-config-'));
  const secretFile = join(dir, 'secret');
  const caFile = join(dir, 'ca.pem');
  writeFileSync(secretFile, 'whsec-1\n');
  writeFileSync(caFile, generateSelfSignedCertificate('siem.example').cert);
  const config = auditExportConfig({
    AUDIT_WEBHOOK_URL: 'https://siem.example/hook',
    AUDIT_WEBHOOK_SECRET_FILE: secretFile,
    AUDIT_WEBHOOK_TOKEN: 'tok-1',
    AUDIT_WEBHOOK_CA_FILE: caFile,
    AUDIT_OTLP_URL: 'http://collector:4318',
    AUDIT_OTLP_HEADERS: 'x-api-key=k%3D1, dd-source = gsp',
    AUDIT_EXPORT_TIMEOUT: '5s',
    AUDIT_EXPORT_BATCH_MAX: '100',
    AUDIT_EXPORT_BACKOFF_BASE: '100ms',
    AUDIT_EXPORT_BACKOFF_MAX: '1m',
  });
  t.equal(config.webhook?.secret, 'whsec-1');
  t.equal(config.webhook?.token, 'tok-1');
  t.match(config.webhook?.ca, /BEGIN CERTIFICATE/);
  t.same(config.otlp, { url: 'http://collector:4318', headers: { 'x-api-key': 'k=1', 'dd-source': 'gsp' } });
  t.same([config.timeoutMs, config.batchMax, config.backoff], [5000, 100, { baseMs: 100, maxMs: 60_000 }]);
  t.same(
    createSinks(config, { service: 'api-server', replica: 'api-0' }).map((s) => s.name),
    ['webhook', 'otlp'],
  );
  t.end();
});

t.test('bad values are refused, naming the variable', (t) => {
  checkRefusals(t, load, [
    [{ AUDIT_WEBHOOK_URL: 'siem.example/hook' }, 'AUDIT_WEBHOOK_URL'],
    [{ AUDIT_WEBHOOK_URL: 'ftp://siem.example/' }, 'AUDIT_WEBHOOK_URL'],
    [{ AUDIT_OTLP_URL: 'grpc://collector:4317' }, 'AUDIT_OTLP_URL'],
    [{ AUDIT_WEBHOOK_SECRET: 's' }, 'AUDIT_WEBHOOK_SECRET'],
    [{ AUDIT_WEBHOOK_TOKEN_FILE: '/nonexistent' }, 'AUDIT_WEBHOOK_TOKEN_FILE'],
    [{ AUDIT_OTLP_HEADERS: 'a=b' }, 'AUDIT_OTLP_HEADERS'],
    [
      { AUDIT_WEBHOOK_URL: 'https://h/', AUDIT_WEBHOOK_SECRET: 'a', AUDIT_WEBHOOK_SECRET_FILE: '/x' },
      'AUDIT_WEBHOOK_SECRET',
    ],
    [{ AUDIT_WEBHOOK_URL: 'https://h/', AUDIT_WEBHOOK_TOKEN: 'two words' }, 'AUDIT_WEBHOOK_TOKEN'],
    [{ AUDIT_WEBHOOK_URL: 'https://h/', AUDIT_WEBHOOK_TOKEN_FILE: '/nonexistent' }, 'AUDIT_WEBHOOK_TOKEN_FILE'],
    [{ AUDIT_WEBHOOK_URL: 'https://h/', AUDIT_WEBHOOK_CA_FILE: '/etc/hostname' }, 'AUDIT_WEBHOOK_CA_FILE'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'novalue' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'a=1,,b=2' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'a=%0d%0aevil: 1' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'a=%zz' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'content-type=text/plain' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: 'a=1,A=2' }, 'AUDIT_OTLP_HEADERS'],
    [{ AUDIT_EXPORT_TIMEOUT: 'soon' }, 'AUDIT_EXPORT_TIMEOUT'],
    [{ AUDIT_EXPORT_BATCH_MAX: '0' }, 'AUDIT_EXPORT_BATCH_MAX'],
    [{ AUDIT_EXPORT_BATCH_MAX: '10001' }, 'AUDIT_EXPORT_BATCH_MAX'],
    [{ AUDIT_EXPORT_BACKOFF_BASE: '1m', AUDIT_EXPORT_BACKOFF_MAX: '1s' }, 'AUDIT_EXPORT_BACKOFF_MAX'],
  ]);
  t.end();
});

t.test('any URL that is not absolute http or https is refused', (t) => {
  fc.assert(
    fc.property(
      fc.string().filter((s) => {
        try {
          return !['http:', 'https:'].includes(new URL(s.trim()).protocol);
        } catch {
          return s.trim() !== '';
        }
      }),
      (raw) =>
        refusedVariable(load, { AUDIT_WEBHOOK_URL: raw }) === 'AUDIT_WEBHOOK_URL' &&
        refusedVariable(load, { AUDIT_OTLP_URL: raw }) === 'AUDIT_OTLP_URL',
    ),
  );
  t.end();
});

const key = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,20}$/);
const value = fc.string({ unit: fc.constantFrom(...'abc XYZ019=,%;:/+-'.split('')), maxLength: 30 });

t.test('headers given as key=value pairs come back as given, percent-encoded values decoded', (t) => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(key, value), { minLength: 1, maxLength: 6, selector: ([k]) => k }), (pairs) => {
      fc.pre(
        pairs.every(
          ([k]) => !['content-type', 'content-length', 'host', 'transfer-encoding', 'connection'].includes(k),
        ),
      );
      const raw = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(',');
      const parsed = parseOtlpHeaders(raw);
      const sorted = (entries: [string, string][]) => JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
      return sorted(Object.entries(parsed)) === sorted([...pairs]);
    }),
  );
  t.end();
});

t.test('a header value with a line break or a key that is no header name is refused', (t) => {
  const bad = fc.oneof(
    fc.tuple(key, fc.constantFrom('%0d', '%0a', '%00')).map(([k, v]) => `${k}=x${v}y`),
    fc
      .tuple(
        fc.string({ unit: fc.constantFrom(' ', '(', ')', '@', ':', '"', '/', '[', ']', '\u00e9'), minLength: 1 }),
        value,
      )
      .map(([k, v]) => `x${k}y=${encodeURIComponent(v)}`),
    key,
  );
  fc.assert(
    fc.property(
      bad,
      (raw) => refusedVariable(load, { AUDIT_OTLP_URL: 'http://c/', AUDIT_OTLP_HEADERS: raw }) === 'AUDIT_OTLP_HEADERS',
    ),
  );
  t.end();
});

t.test('OTLP headers may come from a mounted file (they often hold the collector API key), never from both', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gsp-otlp-headers-'));
  const file = join(dir, 'headers');
  writeFileSync(file, 'x-api-key=k3y%2Fvalue,x-tenant=acme\n');
  const config = load({ AUDIT_OTLP_URL: 'http://collector:4318', AUDIT_OTLP_HEADERS_FILE: file });
  t.same(config.otlp?.headers, { 'x-api-key': 'k3y/value', 'x-tenant': 'acme' });
  t.throws(
    () => load({ AUDIT_OTLP_URL: 'http://c:4318', AUDIT_OTLP_HEADERS: 'a=b', AUDIT_OTLP_HEADERS_FILE: file }),
    /not both/,
  );
  t.throws(() => load({ AUDIT_OTLP_HEADERS_FILE: file }), /AUDIT_OTLP_URL/);
  t.end();
});
