import t from 'tap';
import { kubeStatusError, kubeTransportError } from '../src/kube/errors.js';
import { BASIC_ADMIN, build, kubectl, startKube } from './helper.js';

const kube = await startKube(t);

/** A Kubernetes `Status` body as the API server sends it. */
const status = (code: number, reason: string, message: string, details: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });

t.test('each Kubernetes status becomes the status a client can act on, with the Kubernetes message', async (t) => {
  const cases: [number, string, string, number][] = [
    [400, 'BadRequest', 'the body is not JSON', 400],
    [
      403,
      'Forbidden',
      'secrets is forbidden: User "system:serviceaccount:gsp:cp" cannot create resource "secrets"',
      403,
    ],
    [404, 'NotFound', 'namespaces "nope" not found', 404],
    [409, 'AlreadyExists', 'secrets "x" already exists', 409],
    [409, 'Conflict', 'Operation cannot be fulfilled on secrets "x": the object has been modified', 409],
    [422, 'Invalid', 'Secret "X" is invalid: metadata.name: Invalid value: "X"', 422],
    [429, 'TooManyRequests', 'too many requests, please try again later', 429],
  ];
  for (const [code, reason, message, expected] of cases) {
    const err = kubeStatusError(code, status(code, reason, message)) as Error & { statusCode: number };
    t.equal(err.statusCode, expected, `${code} ${reason} answers ${expected}`);
    t.ok(err.message.includes(message), `${code} ${reason} passes the Kubernetes message on`);
  }
  const forbidden = kubeStatusError(403, status(403, 'Forbidden', 'secrets is forbidden'));
  t.match(
    forbidden.message,
    /control plane's service account lacks a Kubernetes permission/,
    'a 403 says whose permission is missing',
  );
});

t.test('an Invalid answer lists the causes its message leaves out', async (t) => {
  const causes = [
    {
      reason: 'FieldValueInvalid',
      field: 'spec.ports[0].containerPort',
      message: 'Invalid value: 99999: must be between 1 and 65535',
    },
    { reason: 'FieldValueRequired', field: 'spec.template', message: 'Required value' },
  ];
  const err = kubeStatusError(422, status(422, 'Invalid', 'GameServer.agones.dev "gs" is invalid', { causes }));
  t.equal((err as Error & { statusCode: number }).statusCode, 422);
  t.equal(
    err.message,
    'GameServer.agones.dev "gs" is invalid ' +
      '(spec.ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535; spec.template: Required value)',
  );
  const listed = kubeStatusError(
    422,
    status(422, 'Invalid', 'Secret "X" is invalid: metadata.name: Invalid value: "X"', {
      causes: [{ field: 'metadata.name', message: 'Invalid value: "X"' }],
    }),
  );
  t.equal(
    listed.message,
    'Secret "X" is invalid: metadata.name: Invalid value: "X"',
    'causes already in the message are not repeated',
  );
});

t.test('throttling and the cluster failing or unreachable are retryable, and say when to retry', async (t) => {
  const throttled = kubeStatusError(
    429,
    status(429, 'TooManyRequests', 'slow down', { retryAfterSeconds: 3 }),
  ) as Error & { retryAfter?: number };
  t.equal(throttled.retryAfter, 3, 'from the Status details');
  const header = kubeStatusError(429, status(429, 'TooManyRequests', 'slow down'), { 'retry-after': '7' }) as Error & {
    retryAfter?: number;
  };
  t.equal(header.retryAfter, 7, 'from the Retry-After header');
  for (const code of [500, 502, 503, 504, 401]) {
    const body = status(code, 'InternalError', 'Internal error occurred: etcd at 10.0.0.7:2379 timed out');
    const err = kubeStatusError(code, body) as Error & { statusCode: number; retryAfter?: number };
    t.equal(err.statusCode, 503, `${code} answers 503`);
    t.ok((err.retryAfter ?? 0) > 0, `${code} with Retry-After`);
  }
  const failing = kubeStatusError(
    500,
    status(500, 'InternalError', 'Internal error occurred: etcd at 10.0.0.7:2379 timed out'),
  );
  t.notMatch(failing.message, /etcd|10\.0\.0\.7/, "the cluster's own failure is not described to clients");
  const html = kubeStatusError(502, '<html><body>Bad Gateway from nginx/1.25 at lb-7</body></html>') as Error & {
    statusCode: number;
  };
  t.equal(html.statusCode, 503, 'a body that is no Status is no problem');

  const timedOut = kubeTransportError(new Error('The user aborted a request.'), 10_000) as Error & {
    statusCode: number;
    retryAfter?: number;
  };
  t.match(timedOut, { statusCode: 503, message: /did not answer within 10 s \(KUBE_REQUEST_TIMEOUT\)/ });
  t.ok((timedOut.retryAfter ?? 0) > 0);
  const refused = kubeTransportError(
    Object.assign(
      new Error(
        'request to https://10.96.0.1:443/api/v1/namespaces/gsp/secrets failed, ' +
          'reason: connect ECONNREFUSED 10.96.0.1:443',
      ),
      {
        code: 'ECONNREFUSED',
      },
    ),
    undefined,
  ) as Error & { statusCode: number };
  t.equal(refused.statusCode, 503);
  t.equal(refused.message, 'the Kubernetes API could not be reached (ECONNREFUSED)', "without the cluster's address");
});

t.test('routes answer what Kubernetes says, as problem+json, against a real API server', async (t) => {
  const { app } = await build(t, kube);
  const profile = { image: 'example/game:1.0', ports: [{ name: 'game', containerPort: 7777 }] };
  t.equal(
    (await app.inject({ method: 'PUT', url: '/api/v1/profiles/plain', headers: BASIC_ADMIN, payload: profile }))
      .statusCode,
    201,
  );
  const create = (namespace: string, name: string) =>
    app.inject({
      method: 'POST',
      url: `/api/v1/gameservers/${namespace}`,
      headers: BASIC_ADMIN,
      payload: { profile: 'plain', name },
    });

  t.equal((await create('default', 'twice')).statusCode, 201);
  const again = await create('default', 'twice');
  t.equal(again.statusCode, 409, 'a game server created twice is a conflict');
  t.equal(again.headers['content-type'], 'application/problem+json; charset=utf-8');
  t.match(again.json(), { status: 409, detail: 'gameservers.agones.dev "twice" already exists' });

  const missing = await create('no-such-namespace', 'gs');
  t.equal(missing.statusCode, 404, 'a namespace that does not exist is not found');
  t.match(missing.json(), { status: 404, detail: 'namespaces "no-such-namespace" not found' });
  t.equal(missing.headers['content-type'], 'application/problem+json; charset=utf-8');
});

t.test('an API key whose Secret already exists, made with kubectl, is a 409', async (t) => {
  const { app } = await build(t, kube);
  const made = await kubectl(kube, [
    '-n',
    'default',
    'create',
    'secret',
    'generic',
    'gsp-apikey-by-hand',
    '--from-literal=note=hand-made',
  ]);
  t.equal(made.code, 0, made.stderr);
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/apikeys',
    headers: BASIC_ADMIN,
    payload: { name: 'by-hand' },
  });
  t.equal(res.statusCode, 409);
  t.match(res.json(), { status: 409, detail: 'an API key named by-hand already exists' });
  t.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
});
