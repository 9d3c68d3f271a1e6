import t from 'tap';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { FLAG_UPDATED_EVENT } from '@gsp/platform-contract';
import { bearer, build, PLATFORM_ADMIN, until } from './helper.js';

t.test('a reader that stops reading is cut off with a reload hint; others get every event', async (t) => {
  const { app } = await build(t, { EVENTS_MAX_BACKLOG_BYTES: '65536' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const headers = await bearer(PLATFORM_ADMIN);

  // A client that sends its request, then reads nothing until told.
  const slow = connect(port, '127.0.0.1');
  t.teardown(() => slow.destroy());
  slow.write(`GET /api/v1/events HTTP/1.1\r\nhost: x\r\nauthorization: ${headers.authorization}\r\n\r\n`);
  slow.pause();

  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/events`, { headers, signal: abort.signal });
  let opened = false;
  let fastCount = 0;
  const fastDone = (async () => {
    const decoder = new TextDecoder();
    let partial = '';
    for await (const chunk of res.body!) {
      const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line === ': gsp events') opened = true;
        if (line === 'event: flag') fastCount += 1;
        if (line.includes('"reason":"last"')) return;
      }
    }
  })();
  await until('both streams to open', () => opened || undefined);

  // 2,000 events of 8 KiB: more than the kernel's socket buffers and the backlog limit together.
  const reason = 'x'.repeat(8192);
  const count = 2000;
  for (let i = 1; i <= count; i++) {
    // As messages from Redis arrive: the event loop turns between them, so readers can read.
    await new Promise((resolve) => setImmediate(resolve));
    await app.events.publish(FLAG_UPDATED_EVENT, {
      id: String(i),
      flag: 'cli_access.enabled',
      actor: PLATFORM_ADMIN,
      actorRole: 'platform-admin',
      scope: { type: 'platform' },
      value: i % 2 === 0,
      reason: i === count ? 'last' : reason,
    });
  }
  await fastDone;
  t.equal(fastCount, count, 'a reader that keeps up gets all of them');

  let slowText = '';
  slow.setEncoding('utf8');
  slow.on('data', (chunk: string) => (slowText += chunk));
  const ended = new Promise((resolve) => slow.once('end', resolve));
  slow.resume();
  await ended;
  const got = slowText.match(/^event: flag$/gm)?.length ?? 0;
  t.ok(got < count / 2, `the slow reader was cut off after ${got} of ${count}`);
  t.match(
    slowText,
    /event: reload\ndata: \{"reason":"slow-reader"\}\n\n\r\n0\r\n\r\n$/,
    'its last event says to reload',
  );
});

t.test('a replay larger than the backlog limit is sent as fast as the client reads it, not cut off', async (t) => {
  const { app } = await build(t, { EVENTS_MAX_BACKLOG_BYTES: '65536' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  // 800 published events of 1 KiB: 800 KiB to replay, twelve times EVENTS_MAX_BACKLOG_BYTES.
  const payload = { flag: 'f', actor: 'a', scope: { type: 'platform' }, value: true, reason: 'r'.repeat(1024) };
  await app.pg.query(
    `INSERT INTO outbox_events (event_type, scope_key, payload, delivered_at)
     SELECT $1, 'platform', $2, now() FROM generate_series(1, 800)`,
    [FLAG_UPDATED_EVENT, payload],
  );
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/events`, {
    headers: { ...(await bearer(PLATFORM_ADMIN)), 'last-event-id': '0' },
    signal: abort.signal,
  });
  let count = 0;
  let reloads = 0;
  let partial = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    const lines = (partial + decoder.decode(chunk, { stream: true })).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line === 'event: reload') reloads += 1;
      if (line === 'event: flag') count += 1;
    }
    if (count === 800 || reloads > 0) break;
    // A client slower than the server: the stream waits for it.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  t.equal(count, 800, 'every replayed event arrives');
  t.equal(reloads, 0, 'and no reload');
});
