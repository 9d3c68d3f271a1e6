import t from 'tap';
import { fakeApiServer, startStack } from './stack.js';

t.test('an API server that drops an upload half-way: kubectl gets a 502, and the agent serves on', async (t) => {
  const apiUrl = await fakeApiServer(t, (req, res) => {
    if (req.url?.startsWith('/drop')) {
      // The first piece of the body arrives, then the connection is gone without an answer.
      req.once('data', () => req.socket.destroy());
      return;
    }
    res.end('small');
  });
  const stack = await startStack(t, { clusters: 0 });
  const { id, token } = await stack.addCluster('dropper', apiUrl);
  const req = stack.proxyRequest(id, '/drop', token, 'POST');
  const status = await new Promise<number | string>((resolve) => {
    req.on('response', (r) => {
      r.resume();
      r.on('end', () => resolve(r.statusCode ?? 0));
      r.on('error', () => resolve('aborted'));
    });
    req.on('error', (e) => resolve(e.message));
    const chunk = Buffer.alloc(64 * 1024, 'z');
    let n = 0;
    const pump = () => {
      while (n++ < 200) if (!req.write(chunk)) return void req.once('drain', pump);
      req.end();
    };
    pump();
  });
  t.equal(status, 502, 'the proxy answers that the cluster agent failed to answer');
  t.equal(await stack.proxyStatus(id, '/small', token), 200, 'the same tunnel serves the next request');
});
