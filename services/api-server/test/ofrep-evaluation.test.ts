import t from 'tap';
import {
  ifNoneMatchMatches,
  parseContext,
  requestContext,
  strongEtag,
  toEvaluationSuccess,
} from '../src/ofrep/evaluation.js';

t.test('every evaluation source maps to a reason in the OFREP enum, with an explicit value', async (t) => {
  const cases = [
    ['env', 'STATIC'],
    ['default', 'STATIC'],
    ['platform', 'STATIC'],
    ['cluster', 'TARGETING_MATCH'],
  ] as const;
  for (const [source, reason] of cases) {
    for (const value of [true, false]) {
      t.same(
        toEvaluationSuccess('k', { value, source, envPinned: source === 'env', stale: false }),
        {
          key: 'k',
          value,
          reason,
          variant: value ? 'on' : 'off',
          metadata: { source, envPinned: source === 'env', stale: false },
        },
        `${source} ${value}`,
      );
    }
  }
});

t.test('the context is read leniently but typed strictly', async (t) => {
  t.same(parseContext(requestContext(undefined)), {}, 'no body');
  t.same(parseContext(requestContext({})), {}, 'no context');
  t.same(
    parseContext({ targetingKey: 'u', org: 'acme', clusterId: 'c', plan: 'gold', nested: { a: 1 } }),
    { org: 'acme', clusterId: 'c' },
    'other attributes ignored',
  );
  t.same(parseContext({ org: 'acme' }), { org: 'acme' });
  const bad: Array<[unknown, string, string]> = [
    [[], 'PARSE_ERROR', 'the request body must be a JSON object'],
    ['x', 'PARSE_ERROR', 'the request body must be a JSON object'],
    [null, 'PARSE_ERROR', 'the request body must be a JSON object'],
    [{ context: [] }, 'INVALID_CONTEXT', 'context must be an object'],
    [{ context: 'acme' }, 'INVALID_CONTEXT', 'context must be an object'],
    [{ context: { targetingKey: 7 } }, 'INVALID_CONTEXT', 'context.targetingKey must be a string'],
    [{ context: { org: '' } }, 'INVALID_CONTEXT', 'context.org must be a string of 1 to 253 characters'],
    [
      { context: { org: 'acme', clusterId: true } },
      'INVALID_CONTEXT',
      'context.clusterId must be a string of 1 to 64 characters',
    ],
    [
      { context: { clusterId: 'c' } },
      'INVALID_CONTEXT',
      'context.clusterId requires context.org, the tenant the cluster belongs to',
    ],
  ];
  for (const [body, errorCode, message] of bad) {
    t.throws(
      () => parseContext(requestContext(body)),
      { name: 'OfrepRequestError', status: 400, errorCode, message },
      JSON.stringify(body),
    );
  }
});

t.test('If-None-Match uses the weak comparison and understands lists and *', async (t) => {
  const etag = strongEtag({ flags: [] });
  t.match(etag, /^"[A-Za-z0-9_-]{43}"$/);
  t.equal(strongEtag({ flags: [] }), etag, 'stable');
  t.not(strongEtag({ flags: [1] }), etag);
  t.ok(ifNoneMatchMatches(etag, etag));
  t.ok(ifNoneMatchMatches(`W/${etag}`, etag));
  t.ok(ifNoneMatchMatches(`"a" ,  ${etag}`, etag));
  t.ok(ifNoneMatchMatches('*', etag));
  t.notOk(ifNoneMatchMatches(undefined, etag));
  t.notOk(ifNoneMatchMatches('"a", "b"', etag));
  t.notOk(ifNoneMatchMatches(etag.slice(1, -1), etag), 'an unquoted tag is not the tag');
});
