import t from 'tap';
import { jsonPatch, mergePatch, PatchError, strategicMergePatch, type Json } from '../src/api/patch.js';

t.test('merge patch follows the examples of RFC 7386', async (t) => {
  const cases: [Json, Json, Json][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, result] of cases) t.same(mergePatch(target, patch), result, JSON.stringify(patch));
});

t.test('JSON patch applies add, remove, replace, move, copy and test as RFC 6902 says', async (t) => {
  const doc: Json = { metadata: { labels: { a: '1' } }, list: [1, 2, 3] };
  const result = jsonPatch(doc, [
    { op: 'add', path: '/metadata/labels/b', value: '2' },
    { op: 'remove', path: '/list/0' },
    { op: 'add', path: '/list/-', value: 4 },
    { op: 'replace', path: '/metadata/labels/a', value: 'one' },
    { op: 'copy', from: '/metadata/labels/a', path: '/copied' },
    { op: 'move', from: '/copied', path: '/moved' },
    { op: 'test', path: '/moved', value: 'one' },
    { op: 'add', path: '/a~1b', value: true },
  ]);
  t.same(result, { metadata: { labels: { a: 'one', b: '2' } }, list: [2, 3, 4], moved: 'one', 'a/b': true });
  t.same(doc, { metadata: { labels: { a: '1' } }, list: [1, 2, 3] }, 'the original is untouched');
  t.throws(() => jsonPatch(doc, [{ op: 'test', path: '/list/0', value: 9 }]), PatchError);
  t.throws(() => jsonPatch(doc, [{ op: 'remove', path: '/missing' }]), PatchError);
  t.throws(() => jsonPatch(doc, [{ op: 'add', path: '/nope/deeper', value: 1 }]), PatchError);
  t.throws(() => jsonPatch(doc, { op: 'add' }), PatchError);
});

t.test('strategic merge patch merges keyed lists and honours $patch directives', async (t) => {
  const keys = { 'spec.containers': 'name', 'spec.containers.env': 'name' };
  const pod: Json = {
    spec: {
      containers: [
        { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] },
        { name: 'b', image: 'b:1' },
      ],
    },
  };
  t.same(strategicMergePatch(pod, { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }] } }, keys), {
    spec: {
      containers: [
        {
          name: 'a',
          image: 'a:1',
          env: [
            { name: 'X', value: '1' },
            { name: 'Y', value: '2' },
          ],
        },
        { name: 'b', image: 'b:1' },
      ],
    },
  });
  t.same(strategicMergePatch(pod, { spec: { containers: [{ name: 'b', $patch: 'delete' }] } }, keys), {
    spec: { containers: [{ name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }] }] },
  });
  t.same(
    strategicMergePatch(pod, { spec: { containers: [{ name: 'c', image: 'c:1' }, { $patch: 'replace' }] } }, keys),
    {
      spec: { containers: [{ name: 'c', image: 'c:1' }] },
    },
  );
  t.same(
    strategicMergePatch(
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    ),
    { metadata: { finalizers: ['b'] } },
  );
  t.same(strategicMergePatch({ spec: { x: 1, y: 2 } }, { spec: { $patch: 'replace', z: 3 } }), { spec: { z: 3 } });
});
