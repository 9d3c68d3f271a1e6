/**
 * A reference point for the proxy benchmark, not product code: the least a Node process can
 * do to stand between kubectl and the cluster. One HTTPS server that passes each request to
 * its target over keep-alive HTTPS connections (undici, as the tunnel agent uses) and streams
 * the answer back, with no token check, no switch and no tunnel. Configured by FORWARD_PORT,
 * FORWARD_TARGET (the next hop's URL), FORWARD_TOKEN (the cluster's token), TLS_CERT_FILE and
 * TLS_KEY_FILE.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { Pool } from 'undici';

const target = new URL(process.env.FORWARD_TARGET ?? 'https://127.0.0.1:6443');
const pool = new Pool(target.origin, { connect: { rejectUnauthorized: false } });
const authorization = `Bearer ${process.env.FORWARD_TOKEN ?? ''}`;
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'authorization', 'expect']);

const server = https.createServer(
  { cert: readFileSync(process.env.TLS_CERT_FILE ?? ''), key: readFileSync(process.env.TLS_KEY_FILE ?? '') },
  (req, res) => {
    const headers: string[] = [];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      if (!HOP.has((req.rawHeaders[i] as string).toLowerCase()))
        headers.push(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
    headers.push('authorization', authorization);
    const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
    pool.dispatch(
      { path: req.url ?? '/', method: req.method ?? 'GET', headers, body: hasBody ? req : null },
      {
        onConnect() {},
        onHeaders(status, raw) {
          const flat = raw.map((b) => b.toString('latin1'));
          const out: string[] = [];
          for (let i = 0; i + 1 < flat.length; i += 2)
            if (!HOP.has((flat[i] as string).toLowerCase())) out.push(flat[i] as string, flat[i + 1] as string);
          res.writeHead(status, out);
          return true;
        },
        onData(chunk) {
          res.write(chunk);
          return true;
        },
        onComplete() {
          res.end();
        },
        onError() {
          res.destroy();
        },
      },
    );
  },
);
server.listen(Number(process.env.FORWARD_PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close();
});
