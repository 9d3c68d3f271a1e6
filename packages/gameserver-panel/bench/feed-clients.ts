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

function openFeed(): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${origin}/api/v1/events/gameservers`, { headers: { cookie }, agent }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`feed answered ${res.statusCode}`));
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
