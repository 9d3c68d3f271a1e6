import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { findKubectl, startKubeLite } from '@gsp/kube-lite';
import type { KubeLite } from '@gsp/kube-lite';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';

type Tap = { teardown(fn: () => unknown): void };

export const ADMIN_USER = 'root';
export const ADMIN_PASSWORD = 'correct horse battery staple';
export const BASIC_ADMIN = { authorization: `Basic ${Buffer.from(`${ADMIN_USER}:${ADMIN_PASSWORD}`).toString('base64')}` };
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** kube-lite on a free port for one test file. */
export async function startKube(t: Tap): Promise<KubeLite> {
  const kube = await startKubeLite({ port: 0, stepMs: 50 });
  t.teardown(() => kube.close());
  return kube;
}

/** Collects audit lines written by the app. */
export class AuditCapture extends Writable {
  readonly text: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.text.push(chunk.toString());
    callback();
  }
  lines(): Record<string, unknown>[] {
    return this.text.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
  }
}

export interface Built {
  app: FastifyInstance;
  audit: AuditCapture;
}

/** The environment every test app starts from: Basic admin and API keys against `kube`. */
export function baseEnv(kube: KubeLite): Record<string, string> {
  return {
    KUBECONFIG: kube.kubeconfigPath,
    POD_NAMESPACE: 'default',
    AUTH_MODE: 'apikey,basic',
    AUTH_BASIC_USER: ADMIN_USER,
    AUTH_BASIC_PASSWORD: ADMIN_PASSWORD,
    AUTH_BASIC_ROLE: 'admin',
  };
}

export async function build(t: Tap, kube: KubeLite, env: Record<string, string | undefined> = {}): Promise<Built> {
  const config = loadConfig({ ...baseEnv(kube), ...env }, { serviceAccountNamespaceFile: '/nonexistent' });
  const audit = new AuditCapture();
  const app = await buildApp(config, { logger: false, auditStream: audit });
  t.teardown(() => app.close());
  await app.ready();
  return { app, audit };
}

/** Creates an API key through the API as the Basic admin and returns its value. */
export async function createKey(app: FastifyInstance, name: string, role?: string): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/v1/apikeys', headers: BASIC_ADMIN, payload: { name, ...(role ? { role } : {}) } });
  if (res.statusCode !== 201) throw new Error(`creating key ${name}: ${res.statusCode} ${res.body}`);
  return (res.json() as { key: string }).key;
}

export function redisPrefix(): string {
  return `t${randomBytes(5).toString('hex')}:`;
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `ms`. */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let kubectlPath: string | undefined;

export function kubectl(kube: KubeLite, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  kubectlPath ??= findKubectl({ searchPath: false });
  return new Promise((resolve, reject) => {
    execFile(
      kubectlPath as string,
      ['--kubeconfig', kube.kubeconfigPath, '--cache-dir', join(dirname(kube.kubeconfigPath), 'kubectl-cache'), ...args],
      { env: { ...process.env, HOME: process.env.HOME ?? '/tmp' }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}
