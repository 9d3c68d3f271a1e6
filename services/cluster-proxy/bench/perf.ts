/**
 * What a V8 CPU profile cannot see: the native code below a `writev` (TLS encryption, then the
 * system call) and the reads no JS frame is on (TLS decryption, nghttp2's parsing, libuv). Linux
 * `perf` samples the processes (every thread, kernel included) while one load runs, and each
 * sample's symbol is sorted into a group. JIT-compiled JavaScript has no symbol here (the
 * processes run without `--perf-basic-prof`): it is one group, which the V8 profile breaks down.
 * BENCH_PERF=<dir> turns it on (it needs `perf` and kernel.perf_event_paranoid <= 2).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

/** Groups of native symbols, first match wins; `kernel` and `jit` are decided before. */
const GROUPS: [string, RegExp][] = [
  [
    'TLS: OpenSSL and TLSWrap (encryption, decryption, records)',
    new RegExp(
      'aesni|_aes_|gcm|ghash|sha(1|256|512)|EVP_|ossl_|OPENSSL|SSL_|ssl3_|tls1?_|BIO_|CRYPTO_|' +
        'chacha|poly1305|x25519|ecp_nistz|bn_|TLSWrap|node::crypto::',
    ),
  ],
  ['HTTP/2: nghttp2 and node::http2', /nghttp2|node::http2::/],
  ["HTTP/1: llhttp and node's parser", /llhttp|node::.*Parser/],
  [
    'V8 GC',
    new RegExp(
      'v8::internal::(Heap|Scavenge|MarkCompact|Marking|MinorMark|Sweep|Evacuat|Concurrent|Incremental|PagedSpace|' +
        'NewSpace|SemiSpace|LargeObject|Compaction|GCTracer|MemoryAllocator|MainMarking|YoungGeneration|' +
        'RememberedSet|SlotSet|Page)|cppgc::|heap::base::',
    ),
  ],
  ['libuv', /^uv_|^uv__/],
  ['V8 builtins and runtime (interpreter, ICs, allocation, promises)', /^Builtins_|v8::|^Runtime_|^v8_/],
  ['Node C++ (streams, buffers, bindings)', /^node::|^napi_/],
  ['libc (memcpy, malloc, ...)', /^__|^mem|^malloc|^free$|^_int_|^str|^cfree|^epoll|^read$|^write|^pthread/],
];

export interface NativeSummary {
  /** Per pid: groups with their share of that process's samples. */
  byPid: Map<number, { group: string; share: number }[]>;
}

/**
 * Starts `perf record` on `pids`; `stop` ends it (SIGINT), waits for its file and tells each
 * thread's process (perf reports threads; a process's GC and pool threads count as its own).
 */
export function recordNative(pids: number[], file: string): { stop(): Promise<Map<number, number>> } {
  const perf = spawn('perf', ['record', '-F', '997', '-p', pids.join(','), '-o', file, '--quiet'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let errors = '';
  perf.stderr.on('data', (c: Buffer) => (errors += c.toString('utf8')));
  const exited = new Promise<void>((resolve, reject) => {
    perf.once('error', reject);
    perf.once('exit', (code, signal) =>
      code === 0 || signal === 'SIGINT' || code === 130 ? resolve() : reject(new Error(`perf record: ${errors}`)),
    );
  });
  return {
    async stop() {
      const threads = new Map<number, number>();
      for (const pid of pids) for (const tid of readdirSync(`/proc/${pid}/task`)) threads.set(Number(tid), pid);
      perf.kill('SIGINT');
      await exited;
      return threads;
    },
  };
}

/** `threads`: each thread's process, from `recordNative`'s `stop`. */
export function summarizeNative(file: string, threads: Map<number, number>): NativeSummary {
  const text = execFileSync('perf', ['report', '-i', file, '--no-children', '--sort', 'pid,dso,sym', '--stdio'], {
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const totals = new Map<number, Map<string, number>>();
  // "    12.34%  21020:node  node   [.] _aesni_ctr32_ghash_6x" (the first number is the thread's id;
  // a DSO may have spaces: "[JIT] tid 21020")
  const line = /^\s+([\d.]+)%\s+(\d+):\S*\s+(.+?)\s+\[(.)\]\s+(.*)$/;
  for (const row of text.split('\n')) {
    const m = line.exec(row);
    if (!m) continue;
    const [, pct, tid, dso, kind, sym] = m as unknown as [string, string, string, string, string, string];
    const pid = threads.get(Number(tid)) ?? Number(tid);
    let group: string;
    if (kind === 'k') group = 'kernel (system calls, TCP over loopback)';
    else if (/perf-\d+\.map|^\[JIT\]|^\[unknown\]/.test(dso) || /^0x[0-9a-f]+$/.test(sym.trim()))
      group = 'JIT-compiled JavaScript (see the V8 profile)';
    else group = GROUPS.find(([, re]) => re.test(sym.trim()))?.[0] ?? `other native (${dso})`;
    const groups = totals.get(Number(pid)) ?? new Map<string, number>();
    groups.set(group, (groups.get(group) ?? 0) + Number(pct));
    totals.set(Number(pid), groups);
  }
  const byPid = new Map<number, { group: string; share: number }[]>();
  for (const [pid, groups] of totals) {
    const sum = [...groups.values()].reduce((a, b) => a + b, 0);
    byPid.set(
      pid,
      [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([group, pct]) => ({ group, share: pct / sum })),
    );
  }
  return { byPid };
}
