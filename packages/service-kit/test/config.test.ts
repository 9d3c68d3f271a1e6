import t from 'tap';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, nonEmpty, parsePort, parseUrl, readFileVar, readSecret } from '@gsp/service-kit';

function refusal(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.variable;
    throw err;
  }
}

t.test('blank is unset, and values are trimmed', async (t) => {
  t.equal(nonEmpty({ A: '  ' }, 'A'), undefined);
  t.equal(nonEmpty({}, 'A'), undefined);
  t.equal(nonEmpty({ A: ' x ' }, 'A'), 'x');
});

t.test('every port from 0 to 65535 parses; anything else is refused, naming the variable', async () => {
  fc.assert(fc.property(fc.integer({ min: 0, max: 65535 }), (n) => parsePort({ PORT: String(n) }, 'PORT', 1) === n));
  fc.assert(
    fc.property(
      fc.string().filter((s) => s.trim() !== '' && !(/^\d+$/.test(s.trim()) && Number(s.trim()) <= 65535)),
      (s) => refusal(() => parsePort({ PORT: s }, 'PORT', 1)) === 'PORT',
    ),
  );
});

t.test('URLs must be absolute and use an allowed protocol', async (t) => {
  t.equal(parseUrl({ U: 'https://example.test/x' }, 'U', ['https:']), 'https://example.test/x');
  t.equal(parseUrl({}, 'U', ['https:']), undefined);
  t.equal(
    refusal(() => parseUrl({ U: 'example.test' }, 'U', ['https:'])),
    'U',
  );
  t.equal(
    refusal(() => parseUrl({ U: 'http://example.test' }, 'U', ['https:'])),
    'U',
  );
});

t.test('a secret comes from NAME or from the file NAME_FILE, never both', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'service-kit-'));
  writeFileSync(join(dir, 's'), 'from-file\n');
  t.equal(readSecret({ S: 'direct' }, 'S'), 'direct');
  t.equal(readSecret({ S_FILE: join(dir, 's') }, 'S'), 'from-file');
  t.equal(
    refusal(() => readSecret({ S: 'x', S_FILE: join(dir, 's') }, 'S')),
    'S',
  );
  t.equal(
    refusal(() => readSecret({ S_FILE: join(dir, 'missing') }, 'S')),
    'S_FILE',
  );
});

t.test('readFileVar reads the file a variable names, and names the variable when it cannot', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'service-kit-file-'));
  writeFileSync(join(dir, 'ca.crt'), 'PEM\n');
  t.equal(readFileVar({}, 'CA_FILE'), undefined, 'unset');
  t.equal(readFileVar({ CA_FILE: join(dir, 'ca.crt') }, 'CA_FILE'), 'PEM\n', 'as written, not trimmed');
  t.equal(
    refusal(() => readFileVar({ CA_FILE: join(dir, 'missing.crt') }, 'CA_FILE')),
    'CA_FILE',
  );
});
