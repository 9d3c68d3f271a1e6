/**
 * Requests per second of an authenticated viewer route (GET /api/v1/session) with an API key,
 * Basic and an OIDC token, against the same route with AUTH_MODE=none, side by side in one run:
 * `npm run bench -w services/control-plane`.
 *
 * The servers run in a child process so the load generator does not share their event loop.
 * Targets run in alternating rounds (none, API key, Basic, OIDC, none, ...) and each ratio is
 * the median over rounds of the target against the mean of the two `none` runs around it, so
 * drift on a shared machine cancels out instead of landing on whichever target ran last. The
 * servers' CPU time per request is printed too: it is what the ratios would be on an idle core.
 * BENCH_DURATION (seconds per run, default 2), BENCH_ROUNDS (default 7) and BENCH_CONNECTIONS
 * (default 50) tune it.
 */
import { connections, duration, line, median, rounds, startServers } from './harness.js';
import type { Run, Target } from './harness.js';

const { setup, run, stop } = await startServers();
const session = (port: number) => `http://127.0.0.1:${port}/api/v1/session`;

const none: Target = { name: 'AUTH_MODE=none', url: session(setup.none), headers: {} };
const targets: (Target & { goal: number })[] = [
  { name: 'API key (X-API-Key)', url: session(setup.authed), headers: { 'x-api-key': setup.apiKey }, goal: 0.8 },
  { name: 'Basic', url: session(setup.authed), headers: { authorization: setup.basic }, goal: 0.7 },
  { name: 'OIDC bearer token', url: session(setup.authed), headers: { authorization: setup.bearer }, goal: 0.6 },
];

try {
  console.log(
    `GET /api/v1/session: autocannon, ${connections} connections, ` +
      `${rounds} alternating rounds of ${duration} s per target; Node ${process.version}\n`,
  );
  // Every path is warmed up before anything is measured, so no target pays for the JIT of code it shares.
  for (const target of [none, ...targets]) await run(target, 2);
  const noneRuns: Run[] = [];
  const runs = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  const ratios = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  noneRuns.push(await run(none, duration));
  for (let round = 0; round < rounds; round++) {
    const measured: [string, Run][] = [];
    for (const target of targets) measured.push([target.name, await run(target, duration)]);
    const before = noneRuns[noneRuns.length - 1] as Run;
    const after = await run(none, duration);
    noneRuns.push(after);
    const baseline = (before.rps + after.rps) / 2;
    for (const [name, r] of measured) {
      runs.get(name)?.push(r);
      ratios.get(name)?.push(r.rps / baseline);
    }
  }
  console.log(line(none.name, noneRuns));
  for (const target of targets) console.log(line(target.name, runs.get(target.name) ?? []));
  const noneCpu = median(noneRuns.map((r) => r.cpuPerRequest));
  console.log('');
  for (const target of targets) {
    const ratio = median(ratios.get(target.name) ?? []);
    const cpuRatio = noneCpu / median((runs.get(target.name) ?? []).map((r) => r.cpuPerRequest));
    console.log(
      `ratio ${target.name.split(' ')[0]?.padEnd(6)} / none: ${ratio.toFixed(3)}  ` +
        `(target >= ${target.goal}: ${ratio >= target.goal ? 'met' : 'NOT met'})   ` +
        `by server CPU: ${cpuRatio.toFixed(3)}   ` +
        `rounds: ${(ratios.get(target.name) ?? []).map((r) => r.toFixed(2)).join(' ')}`,
    );
  }
} finally {
  await stop();
}
