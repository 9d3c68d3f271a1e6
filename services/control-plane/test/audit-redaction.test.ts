import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import fc from 'fast-check';
import { WebSocket } from 'ws';
import { fromBinary } from '@bufbuild/protobuf';
import { ExportLogsServiceRequestSchema } from '@gsp/audit-export';
import { laterReceiver } from '@gsp/audit-export/testing';
import {
  ADMIN_PASSWORD,
  ADMIN_USER,
  BASIC_ADMIN,
  GAME_PROFILE,
  LogCapture,
  build,
  createGamesNamespace,
  createKey,
  listen,
  putProfiles,
  readyServer,
  startKube,
  until,
} from './helper.js';

/** How a character of a credential is written: as it is, %XX, %xx, or encoded twice (%25XX). */
type Encoding = 0 | 1 | 2 | 3;
const encodings = fc.array(fc.constantFrom<Encoding>(0, 1, 2, 3), { minLength: 80, maxLength: 80 });

/** `secret` with each character written as `plan` says; those `mustEncode` refuses raw are encoded anyway. */
function encode(secret: string, plan: readonly Encoding[], mustEncode: (ch: string) => boolean = () => false): string {
  return [...secret]
    .map((ch, i) => {
      let how = plan[i % plan.length] as Encoding;
      if (how === 0 && mustEncode(ch)) how = 1;
      if (how === 0) return ch;
      return [...Buffer.from(ch)]
        .map((byte) => byte.toString(16).padStart(2, '0'))
        .map((hex) => (how === 1 ? `%${hex.toUpperCase()}` : how === 2 ? `%${hex}` : `%25${hex.toUpperCase()}`))
        .join('');
    })
    .join('');
}
/** A path segment takes only unreserved characters raw; a header value, printable ASCII. */
const inPath = (ch: string) => !/^[A-Za-z0-9._~-]$/.test(ch);
const inHeader = (ch: string) => !/^[\x20-\x7e]$/.test(ch);

/** Whether `text`, read as it is or percent-decoded up to three times, holds `secret`. */
function holds(text: string, secret: string): boolean {
  let view = text;
  for (let level = 0; level <= 3; level++) {
    if (view.includes(secret)) return true;
    view = view.replace(/%[0-9A-Fa-f]{2}/g, (m) => String.fromCharCode(parseInt(m.slice(1), 16)));
  }
  return false;
}

const BEARER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJtYWxsb3J5In0.c2lnbmF0dXJlLW9mLWEtdG9rZW4';
const BASIC = BASIC_ADMIN.authorization;
const SERVER = 'arena-1';

/** Opens a console, types `lines`, closes it; resolves once it is closed. */
function consoleSession(url: string, headers: Record<string, string>, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      for (const line of lines) ws.send(JSON.stringify({ type: 'input', data: `${line}\n` }));
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`console refused: ${res.statusCode}`)));
    ws.once('error', reject);
    ws.once('close', () => resolve());
  });
}

t.test(
  'no credential (API key, Basic password, bearer token, console ticket), however percent-encoded and wherever put, ' +
    'reaches stdout, the application log, the spool, the webhook or OTLP',
  async (t) => {
    const kube = await startKube(t);
    await createGamesNamespace(kube);
    const webhook = await laterReceiver(() => ({ status: 200 }));
    await webhook.up();
    t.teardown(() => webhook.close());
    const otlp = await laterReceiver(() => ({ status: 200 }));
    await otlp.up();
    t.teardown(() => otlp.close());
    const dir = mkdtempSync(join(tmpdir(), 'gsp-audit-redaction-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const log = new LogCapture();
    const { app, audit } = await build(
      t,
      kube,
      { AUDIT_WEBHOOK_URL: webhook.url, AUDIT_OTLP_URL: otlp.url, AUDIT_SPOOL_DIR: dir, RATE_LIMIT_MAX: '100000' },
      { logger: { level: 'info', stream: log } },
    );
    const http = await listen(app);
    await putProfiles(app, { arena: GAME_PROFILE });
    await readyServer(app, SERVER);
    const key = await createKey(app, 'prober', 'admin');
    const tickets: string[] = [];
    const spooled = () =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.seg'))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n');
    const closes = () => audit.lines().filter((l) => l.action === 'console.close').length;
    let consoles = 0;

    const kinds = ['apikey', 'basic', 'bearer', 'ticket'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.record({ path: encodings, agent: encodings, body: encodings, input: encodings }),
        fc.boolean(),
        async (kind, plan, ticketByBasic) => {
          const ids: string[] = [];
          const request = async (path: string, init: RequestInit) => {
            const res = await fetch(`${http}${path}`, init);
            await res.arrayBuffer();
            ids.push(res.headers.get('x-request-id') ?? '');
          };
          let secrets: string[];
          if (kind === 'ticket') {
            // As the panel opens every console: a ticket, asked for with a key or Basic, then ?ticket=.
            const asker = ticketByBasic ? BASIC_ADMIN : { 'x-api-key': key };
            const res = await fetch(`${http}/api/v1/gameservers/games/${SERVER}/console/tickets`, {
              method: 'POST',
              headers: asker,
            });
            ids.push(res.headers.get('x-request-id') ?? '');
            const { ticket } = (await res.json()) as { ticket: string };
            tickets.push(ticket);
            const own = ticketByBasic ? ADMIN_PASSWORD : key;
            secrets = [ticket, own];
            const agent = `probe/1.0 (${encode(ticket, plan.agent, inHeader)} ${encode(own, plan.agent, inHeader)})`;
            consoles++;
            await consoleSession(
              `${http.replace(/^http/, 'ws')}/api/v1/gameservers/games/${SERVER}/console?ticket=${ticket}`,
              { 'user-agent': agent },
              [`say ${encode(ticket, plan.input)}`, `say ${encode(own, plan.input)}`],
            );
          } else {
            const secret = kind === 'apikey' ? key : kind === 'basic' ? ADMIN_PASSWORD : BEARER;
            secrets = [secret];
            const auth: Record<string, string> =
              kind === 'apikey'
                ? { 'x-api-key': key }
                : { authorization: kind === 'basic' ? BASIC : `Bearer ${BEARER}` };
            const headers = { ...auth, 'user-agent': `probe/1.0 (${encode(secret, plan.agent, inHeader)})` };
            await request(`/api/v1/gameservers/games/${encode(secret, plan.path, inPath)}`, { headers });
            const json = { ...headers, 'content-type': 'application/json' };
            const body = encode(secret, plan.body);
            await request(`/api/v1/gameservers/games/${SERVER}/actions/say`, {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ args: [body] }),
            });
            await request('/api/v1/gameservers/games', {
              method: 'POST',
              headers: json,
              body: JSON.stringify({ profile: 'arena', name: body }),
            });
            if (kind !== 'bearer') {
              consoles++;
              await consoleSession(
                `${http.replace(/^http/, 'ws')}/api/v1/gameservers/games/${SERVER}/console`,
                headers,
                [`say ${encode(secret, plan.input)}`],
              );
            }
          }
          await until('the lines of these requests', () => {
            const written = new Set(audit.lines().map((l) => l.requestId));
            return ids.every((id) => written.has(id)) && closes() === consoles;
          });
          const kept = [audit.text.join(''), log.text, spooled()];
          return secrets.every((secret) => kept.every((text) => !holds(text, secret)));
        },
      ),
      { numRuns: 30 },
    );
    t.pass('30 runs: none in stdout, the application log or the spool after any of them');
    const inputs = audit.lines().filter((l) => l.action === 'console.input');
    t.ok(
      inputs.length > 0 && inputs.every((l) => String(l.command).includes('[REDACTED]')),
      `each of the ${inputs.length} console lines typed says [REDACTED] where the credential was`,
    );

    const n = audit.lines().length;
    await until(
      'every record at both sinks',
      () => {
        const events = webhook.requests.flatMap((r) => JSON.parse(r.body.toString()) as unknown[]).length;
        const logs = otlp.requests.reduce(
          (sum, r) =>
            sum +
            (fromBinary(ExportLogsServiceRequestSchema, r.body).resourceLogs[0]?.scopeLogs[0]?.logRecords.length ?? 0),
          0,
        );
        return events >= n && logs >= n;
      },
      20_000,
    );
    const exported = [
      ...webhook.requests.map((r) => r.body.toString()),
      ...otlp.requests.map((r) => r.body.toString('latin1')),
    ].join('\n');
    for (const [name, secret] of [
      ['the API key', key],
      ['the Basic password', ADMIN_PASSWORD],
      ['the Basic credentials', Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')],
      ['the bearer token', BEARER],
      ...tickets.map((ticket, i) => [`ticket ${i + 1}`, ticket]),
    ] as [string, string][])
      t.notOk(holds(exported, secret), `${name} is in no webhook or OTLP byte`);
    t.ok(holds(exported, '[REDACTED]'), 'where a caller put one, the record says [REDACTED]');
    t.ok(tickets.length > 0 && consoles > 0, `${tickets.length} ticket consoles, ${consoles} consoles in all`);
  },
);
