/**
 * A reference point for the proxy benchmark, not product code: the least a Node process can
 * do to stand between kubectl and the cluster. One HTTPS server that passes each request to
 * the cluster over a keep-alive HTTPS agent and streams the answer back, with no token
 * check, no switch and no tunnel. Configured by FORWARD_PORT, FORWARD_TARGET (the cluster's
 * URL), FORWARD_TOKEN (the cluster's token), TLS_CERT_FILE and TLS_KEY_FILE.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';

const target = new URL(process.env.FORWARD_TARGET ?? 'https://127.0.0.1:6443');
const agent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
const authorization = `Bearer ${process.env.FORWARD_TOKEN ?? ''}`;

const server = https.createServer({ cert: readFileSync(process.env.TLS_CERT_FILE ?? ''), key: readFileSync(process.env.TLS_KEY_FILE ?? '') }, (req, res) => {
  const upstream = https.request(
    { protocol: target.protocol, hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host, authorization }, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
server.listen(Number(process.env.FORWARD_PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  agent.destroy();
});
