import t from 'tap';
import { Writable } from 'node:stream';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { bearer, freshSchema, JWT_SECRET, PLATFORM_ADMIN } from './helper.js';

t.test(
  'the request log shows no credential of a URL: query values, a callback code and state, a token in the path',
  async (t) => {
    const { url } = await freshSchema(t);
    let log = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    const app = await buildApp(
      loadConfig({ DATABASE_URL: url, AUTH_JWT_SECRET: JWT_SECRET, PLATFORM_ADMINS: PLATFORM_ADMIN }),
      { level: 'info', stream },
    );
    t.teardown(() => app.close());
    const token = (await bearer(PLATFORM_ADMIN)).authorization.slice('Bearer '.length);
    const secrets = ['the-code-of-a-sign-in', 'the-state-of-a-sign-in', 'an-api-key-value', 'a-password-value'];
    await app.inject({ url: `/console/auth/callback?code=${secrets[0]}&state=${secrets[1]}` });
    await app.inject({ url: `/api/v1/tenants?key=${secrets[2]}&%70assword=${secrets[3]}&access_token=${token}` });
    // The caller's own token in the path, one character percent-encoded.
    const encoded = `${token.slice(0, 5)}%${token.charCodeAt(5).toString(16)}${token.slice(6)}`;
    await app.inject({ url: `/api/v1/tenants/${encoded}`, headers: { authorization: `Bearer ${token}` } });
    t.match(log, /incoming request/, 'the requests are logged');
    t.match(log, /code=\[REDACTED\]&state=\[REDACTED\]/, 'the callback: code and state redacted');
    for (const secret of [...secrets, token, encoded])
      t.notOk(log.includes(secret), `${secret.slice(0, 8)}… not logged`);
  },
);
