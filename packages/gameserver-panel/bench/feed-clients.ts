/**
 * Opens `count` live feeds (GET /api/v1/events/gameservers) with `cookie`, in a process of its
 * own so that the bench's memory figures are the server's alone; prints `open <count>` once every
 * feed has its whole snapshot, then keeps them open, reading and dropping what comes, until killed.
 * Usage: node --import tsx feed-clients.ts <origin> <cookie> <count>
 */
import http from 'node:http';

const [origin = '', cookie = '', countText = '0'] = process.argv.slice(2);
const count = Number(countText);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * Opens one feed; a 503 (Redis or Kubernetes slow under the load) is retried after its Retry-After, as EventSource
 * would.
 */
function openFeed(attempt = 1): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${origin}/api/v1/events/gameservers`, { headers: { cookie }, agent }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const failed = new Error(`feed answered ${res.statusCode}: ${body.slice(0, 300)}`);
          if (res.statusCode !== 503 || attempt >= 5) return reject(failed);
          process.stderr.write(`feed-clients: ${failed.message}; retrying\n`);
          const wait = Number(res.headers['retry-after'] ?? 1) * 1000;
          setTimeout(() => openFeed(attempt + 1).then(resolve, reject), wait);
        });
        return;
      }
      // Only the end of the snapshot frame is looked for; the rest is read and dropped.
      let tail = '';
      let done = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (done) return;
        tail = (tail + chunk).slice(-64);
        if (tail.includes(']}\n\n')) {
          done = true;
          resolve();
        }
      });
    });
    request.on('error', reject);
  });
}

const feeds: Promise<void>[] = [];
for (let i = 0; i < count; i++) feeds.push(openFeed());
await Promise.all(feeds);
process.stdout.write(`open ${count}\n`);
