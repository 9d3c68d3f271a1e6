/**
 * Reads the V8 CPU profiles BENCH_CPU_PROF wrote (`<dir>/<service>/*.cpuprofile`, the largest one:
 * the main thread's) and tells where a process spent its time: the functions with the most self
 * time, and every sample sorted into a group (TLS, HTTP/1, HTTP/2, Connect, protobuf, streams and
 * sockets, our code, GC, ...). A native function (no script URL: a binding such as `writev`) is
 * counted in the group of the nearest caller that has one, except the socket writes: `writev` and
 * `write*String` encrypt (on a TLS socket) and make the system call in one native call, so they are
 * a group of their own, told apart by whether HTTP/2 called them (the tunnel: no TLS on the bench's
 * loopback) or not (kubectl's and the cluster's HTTPS connections: TLS).
 *
 * `node --import tsx services/cluster-proxy/bench/profile.ts <dir>/<service> [...]` prints it for
 * profiles written earlier; the bench prints it for the proxy and the agent when BENCH_CPU_PROF is set.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds of CLOCK_MONOTONIC, the clock of `process.hrtime` too. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Groups, first match wins; tested against the URL of the frame (or of its nearest caller with one). */
const GROUPS: [string, RegExp][] = [
  ['TLS (node:tls, crypto)', /^node:(_tls|tls|internal\/tls|crypto|internal\/crypto)/],
  ['HTTP/2 framing (node:http2)', /^node:(internal\/)?http2/],
  ['Connect (@connectrpc)', /@connectrpc\//],
  ['protobuf encode/decode (@bufbuild)', /@bufbuild\/protobuf/],
  ['HTTP/1 parsing and writing (node:http, undici)', /^node:(_http_|https?$|internal\/http)|\/undici\//],
  [
    'Fastify, pino, prom-client',
    /\/node_modules\/(fastify|@fastify|find-my-way|avvio|light-my-request|pino|prom-client)/,
  ],
  [
    'Node streams, sockets, events, timers',
    new RegExp(
      '^node:(net|stream|internal\\/streams|events|internal\\/event_target|timers|internal\\/timers|buffer|' +
        'internal\\/buffer|internal\\/process|internal\\/async_hooks|internal\\/stream_base_commons|internal\\/util|' +
        'internal\\/errors|internal\\/url|internal\\/validators)',
    ),
  ],
  ['our code (services/, packages/)', /\/(services|packages)\/[^/]+\/(src|dist|bench)\//],
  ['other Node internals', /^node:/],
  ['other packages', /\/node_modules\//],
];

/** Native calls that write to a socket (StreamBase): on a TLSWrap they encrypt first. */
const SOCKET_WRITE = /^(writev|writeBuffer|writeLatin1String|writeUtf8String|writeAsciiString|writeUcs2String)$/;
const HTTP2 = /^node:(internal\/)?http2/;

export interface ProfileSummary {
  file: string;
  /** Seconds of the profile counted: all of it, or the windows asked for. */
  windowS: number;
  /** Milliseconds sampled, idle excluded. */
  busyMs: number;
  idleMs: number;
  top: { name: string; where: string; ms: number; share: number }[];
  groups: { group: string; ms: number; share: number }[];
}

const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(services|packages)\//, '$1/');

/** The profile of the main thread in `dir` (the largest file). */
export function mainProfile(dir: string): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  return files.sort((a, b) => statSync(b).size - statSync(a).size)[0] as string;
}

/**
 * `windows` ([from, to] in microseconds of CLOCK_MONOTONIC, e.g. `process.hrtime.bigint() / 1000n`)
 * restricts the count to the samples taken in them: the time under one line's load, not the start.
 */
export function summarize(file: string, windows?: [number, number][], topN = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  let clock = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    clock += profile.timeDeltas[i] ?? 0;
    const t = clock;
    if (windows && !windows.some(([from, to]) => t >= from && t < to)) continue;
    const id = profile.samples[i] as number;
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, us));
  }
  const groupOf = (id: number): string => {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    if (frame.functionName === '(garbage collector)') return 'GC';
    if (frame.functionName === '(program)')
      return '(program): native code with no JS frame (reads, TLS decryption, nghttp2, V8)';
    const callers: string[] = [];
    for (let up = parent.get(id); up !== undefined; up = parent.get(up))
      callers.push((byId.get(up) as ProfileNode).callFrame.url);
    if (!frame.url && SOCKET_WRITE.test(frame.functionName))
      return callers.some((url) => HTTP2.test(url))
        ? 'socket writes under HTTP/2 (native: the tunnel, plain TCP here)'
        : 'socket writes on TLS (native writev/write*String: encryption and the system call)';
    let at: number | undefined = id;
    while (at !== undefined) {
      const url = (byId.get(at) as ProfileNode).callFrame.url;
      if (url) {
        for (const [group, re] of GROUPS) if (re.test(url)) return group;
        return 'other';
      }
      at = parent.get(at);
    }
    return 'native, no JS caller';
  };
  let idleUs = 0;
  let busyUs = 0;
  const functions = new Map<string, { name: string; where: string; us: number }>();
  const groups = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    if (frame.functionName === '(idle)' || frame.functionName === '(root)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '(native)';
    const key = `${frame.functionName}@${where}`;
    const f = functions.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    f.us += us;
    functions.set(key, f);
    const group = groupOf(id);
    groups.set(group, (groups.get(group) ?? 0) + us);
  }
  return {
    file,
    windowS: windows
      ? windows.reduce((sum, [from, to]) => sum + (to - from), 0) / 1e6
      : (clock - profile.startTime) / 1e6,
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    top: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, topN)
      .map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000, share: f.us / busyUs })),
    groups: [...groups.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([group, us]) => ({ group, ms: us / 1000, share: us / busyUs })),
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6);

/**
 * `cpuMicros`: the process's CPU per request over the same time (from /proc), to print each share
 * in microseconds too. The profile's own times are wall time (V8 samples a thread the scheduler
 * has set aside as busy), so on a busy host only its shares are CPU.
 */
export function printSummary(label: string, s: ProfileSummary, cpuMicros?: number): void {
  const per = (share: number) => (cpuMicros ? `${(share * cpuMicros).toFixed(1).padStart(6)} µs` : '');
  console.log(
    `\nCPU profile of ${label}: ${(s.busyMs / 1000).toFixed(1)} s busy, ` +
      `${(s.idleMs / 1000).toFixed(1)} s idle in ${s.windowS.toFixed(1)} s counted` +
      `${cpuMicros ? `; shares of its ${cpuMicros.toFixed(0)} µs CPU per request` : ''} (${s.file})`,
  );
  console.log('  top self time:');
  for (const f of s.top) console.log(`  ${pct(f.share)} ${per(f.share)}  ${f.name}  ${f.where}`);
  console.log('  by group (self time; a native frame counts with its nearest JS caller):');
  for (const g of s.groups) console.log(`  ${pct(g.share)} ${per(g.share)}  ${g.group}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  for (const dir of process.argv.slice(2)) printSummary(dir, summarize(mainProfile(dir)));
