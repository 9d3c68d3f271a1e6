import t from 'tap';
import fc from 'fast-check';
import {
  LineSplitter,
  MAX_AUDITED_COMMAND,
  RateWindow,
  cutText,
  parseClientMessage,
} from '../../src/terminal/protocol.js';

t.test('any input message is read back with its data exactly', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme' }), (data) => {
      const parsed = parseClientMessage(JSON.stringify({ type: 'input', data }));
      return parsed.ok && parsed.message.data === data;
    }),
  );
  t.pass();
});

t.test('any other frame is refused with a reason, never an exception', async (t) => {
  const notInput = fc.oneof(
    fc.string(),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.record({ type: fc.string(), data: fc.string() }).map((v) => JSON.stringify(v)),
    fc.record({ type: fc.constant('input'), data: fc.jsonValue() }).map((v) => JSON.stringify(v)),
    fc.record({ type: fc.constant('input'), data: fc.string(), extra: fc.jsonValue() }).map((v) => JSON.stringify(v)),
  );
  fc.assert(
    fc.property(notInput, (frame) => {
      const parsed = parseClientMessage(frame);
      if (parsed.ok) {
        // Only a real input message is accepted.
        const value = JSON.parse(frame) as Record<string, unknown>;
        return value.type === 'input' && typeof value.data === 'string' && Object.keys(value).length === 2;
      }
      return parsed.reason.length > 0 && parsed.reason.length < 200;
    }),
  );
  t.match(parseClientMessage('{"type":"resize"}'), { ok: false, reason: /unknown message type "resize"/ });
  t.match(parseClientMessage('[]'), { ok: false, reason: /JSON object/ });
  t.match(parseClientMessage('{"type":"input","data":"x","tty":true}'), { ok: false, reason: /unknown field "tty"/ });
});

t.test('input is audited as the lines the game reads, however the messages cut them', async (t) => {
  const line = fc.string({ unit: fc.constantFrom('a', 'b', ' ', 'é', '😀'), maxLength: 300 });
  fc.assert(
    fc.property(
      fc.array(line, { maxLength: 20 }),
      fc.array(fc.nat(), { maxLength: 10 }),
      fc.constantFrom('\n', '\r\n'),
      (lines, cuts, eol) => {
        const text = lines.map((l) => `${l}${eol}`).join('');
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points, text.length]
          .slice(1)
          .map((end, i, ends) => text.slice(i === 0 ? 0 : (ends[i - 1] as number), end));
        const splitter = new LineSplitter();
        const seen = chunks.flatMap((chunk) => splitter.push(chunk));
        const expected = lines.filter((l) => l.trim() !== '').map((l) => cutText(l, MAX_AUDITED_COMMAND));
        return JSON.stringify(seen) === JSON.stringify(expected) && splitter.flush() === undefined;
      },
    ),
  );
  const splitter = new LineSplitter();
  t.same(splitter.push('say he'), []);
  t.equal(splitter.flush(), 'say he', 'an unfinished line is audited when the console closes');
});

t.test('a command is cut at 256 characters, never inside a character', async (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 400 }), fc.integer({ min: 1, max: 300 }), (text, max) => {
      const cut = cutText(text, max);
      return (
        cut.length <= max &&
        text.startsWith(cut) &&
        !/[\uD800-\uDBFF]$/.test(cut) &&
        (text.length <= max ? cut === text : cut.length >= max - 1)
      );
    }),
  );
  t.equal(cutText('a'.repeat(255) + '😀', 256), 'a'.repeat(255));
});

t.test('at most n messages in any one second', async (t) => {
  let now = 0;
  const rate = new RateWindow(3, 1000, () => now);
  t.same([rate.take(), rate.take(), rate.take(), rate.take()], [true, true, true, false]);
  now = 999;
  t.equal(rate.take(), false, 'still within the second of the first');
  now = 1000;
  t.equal(rate.take(), true, 'the first has left the window');
});
