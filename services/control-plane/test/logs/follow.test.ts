import { PassThrough } from 'node:stream';
import t from 'tap';
import { LogFollow } from '../../src/logs/follow.js';
import type { LogEnd, LogFollowOptions } from '../../src/logs/follow.js';

/** A follow of a fake Kubernetes stream: what it sent, the reasons it told, and how its body ended. */
function following(options: Partial<LogFollowOptions> = {}) {
  const source = new PassThrough();
  const reasons: LogEnd[] = [];
  const follow = new LogFollow(source, {
    events: true,
    follow: true,
    what: 'game server games/one',
    deleted: () => false,
    onEnd: (reason) => reasons.push(reason),
    ...options,
  });
  let text = '';
  follow.body.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const settled = new Promise<'end' | Error>((resolve) => {
    follow.body.once('end', () => resolve('end'));
    follow.body.once('error', resolve);
  });
  return { source, follow, reasons, text: () => text, settled };
}

t.test('a read without follow ends with "end of log" when Kubernetes has sent it all', async (t) => {
  const run = following({ follow: false });
  run.source.end('one\ntwo\n');
  t.equal(await run.settled, 'end');
  t.same(run.reasons, ['end of log']);
  t.equal(run.text(), 'data: one\n\ndata: two\n\nevent: end\ndata: end of log\n\n');
  t.ok(run.source.destroyed, 'the Kubernetes stream is closed');
});

t.test('a follow whose Kubernetes stream ends says why: the container, or the game server deleted', async (t) => {
  const ended = following();
  ended.source.end();
  await ended.settled;
  t.same(ended.reasons, ['container log ended']);

  const deleted = following({ deleted: () => true });
  deleted.source.end();
  await deleted.settled;
  t.same(deleted.reasons, ['game server deleted']);
});

t.test('the first reason stands: the stream ends once', async (t) => {
  const run = following();
  run.source.write('line\n');
  run.follow.end('game server deleted');
  run.follow.end('control plane shutting down');
  run.source.end();
  t.equal(await run.settled, 'end');
  t.same(run.reasons, ['game server deleted']);
  t.match(run.text(), /event: end\ndata: game server deleted\n\n$/);
});

t.test('a cut Kubernetes stream ends events with "log stream cut"', async (t) => {
  const run = following();
  run.source.write('line\n');
  run.source.destroy();
  t.equal(await run.settled, 'end');
  t.same(run.reasons, ['log stream cut']);
  t.match(run.text(), /data: line\n\nevent: end\ndata: log stream cut\n\n$/);
});

t.test('a cut Kubernetes stream leaves plain text unfinished, with an error naming the game server', async (t) => {
  const run = following({ events: false });
  run.source.write('line\n');
  run.source.destroy();
  const settled = await run.settled;
  t.match(settled, { message: 'the log stream of game server games/one from Kubernetes was cut' });
  t.same(run.reasons, ['log stream cut']);
  t.equal(run.text(), 'line\n', 'plain text passes through as written');
});

t.test('a client that goes away closes the Kubernetes stream, with no reason told', async (t) => {
  const run = following();
  run.follow.body.destroy();
  await new Promise((resolve) => run.source.once('close', resolve));
  t.ok(run.source.destroyed);
  run.follow.end('control plane shutting down');
  t.same(run.reasons, [], 'ending after the client went tells nothing');
});
