/**
 * `npm run -s terminal -- <namespace>/<name>`: a game server's console in a terminal. Lines read
 * on stdin are sent as input, the game's output is written to stdout, and the console's state
 * changes and its end to stderr. Reads CONTROL_PLANE_URL and the credential from the environment.
 */
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';

const USAGE = `usage: npm run -s terminal -- <namespace>/<name>

Opens the console of a game server of the control plane: type console commands (help, status,
say <text>...), read the game's answers. Ctrl-D or the end of piped input closes it once the
output has been quiet for half a second.
  CONTROL_PLANE_URL                      default http://127.0.0.1:8080
  GSP_API_KEY                            an API key of an operator (or admin)
  GSP_BASIC_USER, GSP_BASIC_PASSWORD     or a Basic user and password
e.g.  GSP_BASIC_USER=admin GSP_BASIC_PASSWORD=$(cat .data/dev-basic-password) npm run -s terminal -- games/arena-1`;

/** What the control plane accepts: 4 KiB of data per message, 20 messages a second. */
const MAX_MESSAGE_BYTES = 4096;
const MESSAGE_EVERY_MS = 60;
/** After the end of stdin, the console closes once its output has been quiet this long. */
const QUIET_MS = 500;

type ServerMessage =
  { type: 'output'; data: string } | { type: 'state'; state: string } | { type: 'closed'; reason: string };

function fail(message: string, code = 2): never {
  console.error(`terminal: ${message}`);
  process.exit(code);
}

function credentialHeaders(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.GSP_API_KEY) return { 'x-api-key': env.GSP_API_KEY };
  if (env.GSP_BASIC_USER && env.GSP_BASIC_PASSWORD !== undefined) {
    return {
      authorization: `Basic ${Buffer.from(`${env.GSP_BASIC_USER}:${env.GSP_BASIC_PASSWORD}`).toString('base64')}`,
    };
  }
  return fail(`set GSP_API_KEY, or GSP_BASIC_USER and GSP_BASIC_PASSWORD\n\n${USAGE}`);
}

/** Input waiting to be sent, in messages that keep under the per-message and per-second limits. */
class Outbox {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly send: (data: string) => void) {}

  get empty(): boolean {
    return this.pending === '';
  }

  push(text: string): void {
    this.pending += text;
    this.timer ??= setTimeout(() => this.flush(), 0);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.pending === '') return;
    let cut = Math.min(this.pending.length, MAX_MESSAGE_BYTES);
    while (Buffer.byteLength(this.pending.slice(0, cut)) > MAX_MESSAGE_BYTES) cut--;
    // Whole lines when they fit, so that each message is what a person would have typed.
    const newline = this.pending.lastIndexOf('\n', cut - 1);
    if (cut < this.pending.length && newline >= 0) cut = newline + 1;
    this.send(this.pending.slice(0, cut));
    this.pending = this.pending.slice(cut);
    if (this.pending !== '') this.timer = setTimeout(() => this.flush(), MESSAGE_EVERY_MS);
  }
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const [target, ...extra] = positionals;
const match = /^([a-z0-9-]+)\/([a-z0-9-]+)$/.exec(target ?? '');
if (match === null || extra.length > 0) fail(`give one game server as <namespace>/<name>\n\n${USAGE}`);
const [, namespace, name] = match as RegExpExecArray;

const base = (process.env.CONTROL_PLANE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
if (!/^https?:\/\//.test(base))
  fail(`CONTROL_PLANE_URL must be an http:// or https:// URL, got ${JSON.stringify(base)}`);
const url = `${base.replace(/^http/, 'ws')}/api/v1/gameservers/${namespace}/${name}/console`;
const ws = new WebSocket(url, { headers: credentialHeaders(process.env) });

let closedReason: string | undefined;
let inputEnded = false;
let quiet: NodeJS.Timeout | undefined;
const outbox = new Outbox((data) => ws.send(JSON.stringify({ type: 'input', data })));

/** Once stdin has ended and everything was sent, closes after the output has been quiet a while. */
function closeWhenQuiet(): void {
  if (!inputEnded) return;
  clearTimeout(quiet);
  quiet = setTimeout(() => (outbox.empty ? ws.close(1000) : closeWhenQuiet()), QUIET_MS);
}

ws.on('unexpected-response', (_request, response) => {
  let body = '';
  response.on('data', (chunk: Buffer) => (body += chunk.toString()));
  response.on('end', () => {
    let detail = body;
    try {
      detail = (JSON.parse(body) as { detail?: string }).detail ?? body;
    } catch {
      // Not problem+json: shown as it came.
    }
    fail(`${response.statusCode}: ${detail}`, 1);
  });
});
ws.on('error', (err) => fail(err.message, 1));
ws.on('open', () => {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (text: string) => outbox.push(text));
  process.stdin.on('end', () => {
    inputEnded = true;
    closeWhenQuiet();
  });
});
ws.on('message', (raw) => {
  const message = JSON.parse(raw.toString()) as ServerMessage;
  if (message.type === 'output') {
    process.stdout.write(message.data);
    closeWhenQuiet();
  } else if (message.type === 'state') {
    console.error(`[state] ${message.state}`);
  } else {
    closedReason = message.reason;
    console.error(`[closed] ${message.reason}`);
  }
});
ws.on('close', () => {
  // Closed by us at the end of the input (0), or by the control plane with a reason (1).
  const code = closedReason === undefined ? 0 : 1;
  process.stdout.write('', () => process.exit(code));
});
process.once('SIGINT', () => ws.close(1000));
