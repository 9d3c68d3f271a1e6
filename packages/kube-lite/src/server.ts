/**
 * The HTTP(S) front: routes Kubernetes REST paths to the Api, renders Status errors, lists,
 * tables and watch streams, and upgrades exec/attach requests to WebSocket.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseYaml } from 'yaml';
import type { Api, WatchEvent } from './api/api.js';
import type { Consoles, PodConsole } from './container/console.js';
import {
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
  openApiV2Document,
  openApiV3Document,
  openApiV3Index,
  versionInfo,
} from './discovery.js';
import { requestUser, selfSubjectReview, SELF_SUBJECT_REVIEWS_PATH } from './authentication.js';
import { ExecServer, parseExecQuery } from './exec.js';
import { serveOpenApiV2 } from './openapiv2.js';
import { decodeProtobufObject } from './protobuf.js';
import {
  RESOURCE_TYPES,
  apiVersionOf,
  typeKey,
  type KubeObject,
  type ResourceType,
  type Verb,
} from './api/registry.js';
import { badRequest, methodNotAllowed, notFound, StatusError, unauthorized, type Status } from './api/status.js';
import { toTable, wantsTable, type IncludeObject } from './table.js';

const MAX_BODY = 3 * 1024 * 1024;

export interface RouterOptions {
  api: Api;
  consoles: Consoles;
  /** Given: only this bearer token is accepted. Absent: any request is accepted. */
  token?: string;
  bookmarkIntervalMs: number;
  serverAddress: () => string;
  /** Describes a pod for the console's `status` command. */
  describePod: (namespace: string, name: string) => string;
}

interface Target {
  type: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: string | undefined;
}

/** A request for a resource path, as the handlers of its parts take it. */
interface ResourceCall {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  method: string;
  target: Target;
}

const PODS = RESOURCE_TYPES.find((t) => t.group === '' && t.plural === 'pods') as ResourceType;

/** Resolves a resource path below `/api/v1` or `/apis/{group}/{version}`. */
export function resolvePath(pathname: string): Target | undefined {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    // An escape that is not UTF-8 (`%FF`) names no resource: 404, as the API server answers.
    return undefined;
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api' && segments.length >= 3) {
    group = '';
    version = segments[1] as string;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 4) {
    group = segments[1] as string;
    version = segments[2] as string;
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  const typeOf = (plural: string | undefined): ResourceType | undefined =>
    RESOURCE_TYPES.find((t) => t.group === group && t.version === version && t.plural === plural);
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const type = typeOf(rest[2]);
    if (type?.namespaced) return { type, namespace: rest[1], name: rest[3], subresource: rest[4] };
  }
  const type = typeOf(rest[0]);
  if (!type || rest.length > 3) return undefined;
  if (type.namespaced) {
    // All-namespaces collection only.
    return rest.length === 1 ? { type, namespace: undefined, name: undefined, subresource: undefined } : undefined;
  }
  return { type, namespace: undefined, name: rest[1], subresource: rest[2] };
}

/**
 * A `Warning` header value as the API server writes it: code 299, no agent, the text quoted with
 * `"` and `\\` escaped. Header strings are sent as latin1, so UTF-8 text is passed as its bytes.
 */
function warningHeader(text: string): string {
  return Buffer.from(`299 - "${text.replace(/["\\]/g, '\\$&')}"`, 'utf8').toString('latin1');
}

function sendJson(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number | string[]> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  };
  // The API server sends each distinct warning once.
  if (warnings.length > 0) headers.Warning = [...new Set(warnings)].map(warningHeader);
  res.writeHead(code, headers);
  res.end(text);
}

function sendStatus(res: ServerResponse, err: StatusError | Status): void {
  const status = err instanceof StatusError ? err.toStatus() : err;
  sendJson(res, status.code, status);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY)
      throw new StatusError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728');
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  const contentType = (req.headers['content-type'] ?? 'application/json').toLowerCase();
  if (contentType.startsWith('application/vnd.kubernetes.protobuf'))
    return bytes.length ? decodeProtobufObject(bytes) : undefined;
  if (contentType.includes('cbor')) {
    throw new StatusError(
      415,
      'UnsupportedMediaType',
      'the body of the request was in an unknown format - accepted media types include: ' +
        'application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  }
  const text = bytes.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    if (contentType.includes('yaml')) return parseYaml(text) as unknown;
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw badRequest(`the body of the request could not be decoded: ${(err as Error).message}`);
  }
}

function flag(url: URL, name: string): boolean {
  const value = url.searchParams.get(name);
  return value === 'true' || value === '1';
}

function isDryRun(url: URL): boolean {
  return url.searchParams.getAll('dryRun').includes('All');
}

const NOT_ALLOWED = 'the server does not allow this method on the requested resource';

function requireVerb(type: ResourceType, verb: Verb): void {
  if (!type.verbs.includes(verb)) throw methodNotAllowed(NOT_ALLOWED);
}

export class Router {
  private readonly exec = new ExecServer();
  private readonly openStreams = new Set<ServerResponse>();
  private readonly watchStreams = new Set<ServerResponse>();

  constructor(private readonly options: RouterOptions) {}

  private authorized(req: IncomingMessage): boolean {
    if (this.options.token === undefined) return true;
    return req.headers.authorization === `Bearer ${this.options.token}`;
  }

  handle = (req: IncomingMessage, res: ServerResponse): void => {
    this.route(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof StatusError) sendStatus(res, err);
      else sendStatus(res, new StatusError(500, 'InternalError', `Internal error occurred: ${(err as Error).message}`));
    });
  };

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://kube-lite');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
      return;
    }
    if (!this.authorized(req)) throw unauthorized();
    if (path === '/version') return sendJson(res, 200, versionInfo());
    if (path === '/api') return sendJson(res, 200, apiVersions(this.options.serverAddress()));
    if (path === '/apis') return sendJson(res, 200, apiGroupList());
    if (path === '/openapi/v2') {
      const answer = serveOpenApiV2(openApiV2Document(), req.headers.accept, req.headers['if-none-match']);
      res.writeHead(answer.status, { ...answer.headers, 'Content-Length': answer.body.length }).end(answer.body);
      return;
    }
    if (path === '/openapi/v3') return sendJson(res, 200, openApiV3Index());
    if (path.startsWith('/openapi/v3/')) {
      const doc = openApiV3Document(path.slice('/openapi/v3/'.length));
      if (doc) return sendJson(res, 200, doc);
    }
    const segments = path.split('/').filter(Boolean);
    if (segments[0] === 'api' && segments.length === 2) {
      const list = apiResourceList('', segments[1] as string);
      if (list) return sendJson(res, 200, list);
    }
    if (segments[0] === 'apis' && segments.length === 2) {
      const group = apiGroup(segments[1] as string);
      if (group) return sendJson(res, 200, group);
    }
    if (segments[0] === 'apis' && segments.length === 3) {
      const list = apiResourceList(segments[1] as string, segments[2] as string);
      if (list) return sendJson(res, 200, list);
    }
    if (path === SELF_SUBJECT_REVIEWS_PATH) {
      if (method !== 'POST') throw methodNotAllowed('the server does not allow this method on the requested resource');
      const user = requestUser(req.headersDistinct);
      return sendJson(res, 201, selfSubjectReview(await readBody(req), user));
    }
    const target = resolvePath(path);
    if (!target) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    await this.resource({ req, res, url, method, target });
  }

  private async resource(call: ResourceCall): Promise<void> {
    const { req, res, url, method, target } = call;
    const { type, namespace, name, subresource } = target;
    if (subresource !== undefined) {
      if (!type.subresources.includes(subresource)) throw notFound(type, name ?? '');
      if (subresource === 'log') return this.logs(res, url, namespace as string, name as string);
      if (subresource === 'exec' || subresource === 'attach') {
        throw new StatusError(400, 'BadRequest', 'Upgrade request required');
      }
      if (subresource === 'scale') return this.scale(req, res, method, target);
      if (subresource === 'status' || subresource === 'finalize') return this.statusSubresource(call);
    }
    if (name === undefined) return this.collection(call);
    return this.object(call);
  }

  /** The status (and a namespace's finalize) subresource: reads and writes of the status alone. */
  private async statusSubresource({ req, res, url, method, target }: ResourceCall): Promise<void> {
    const { type, namespace, name } = target;
    const { api } = this.options;
    const dryRun = isDryRun(url);
    if (method === 'GET') return this.sendObject(req, res, url, type, api.get(type, namespace, name as string));
    if (method === 'PUT')
      return sendJson(
        res,
        200,
        api.update(type, namespace, name as string, await readBody(req), { dryRun, subresource: 'status' }),
      );
    if (method === 'PATCH') {
      // The patch applies to the whole object; only its status is kept. (Patching the main
      // resource first would drop the status change wherever a status subresource exists.)
      api.get(type, namespace, name as string);
      return sendJson(
        res,
        200,
        api.patch(type, namespace, name as string, req.headers['content-type'] ?? '', await readBody(req), {
          dryRun,
          subresource: 'status',
        }),
      );
    }
    throw methodNotAllowed(NOT_ALLOWED);
  }

  /** A path without a name: list or watch, create, delete a collection. */
  private async collection({ req, res, url, method, target }: ResourceCall): Promise<void> {
    const { api } = this.options;
    const { type, namespace } = target;
    const dryRun = isDryRun(url);
    if (method === 'GET') {
      if (flag(url, 'watch')) {
        requireVerb(type, 'watch');
        return this.watch(req, res, url, target);
      }
      requireVerb(type, 'list');
      return this.list(req, res, url, target);
    }
    if (method === 'POST') {
      requireVerb(type, 'create');
      const body = await readBody(req);
      if (type.group === 'allocation.agones.dev') {
        return sendJson(res, 201, await this.allocate(namespace as string, body));
      }
      const warnings: string[] = [];
      return sendJson(res, 201, api.create(type, namespace, body, { dryRun, warnings }), warnings);
    }
    if (method === 'DELETE') {
      requireVerb(type, 'deletecollection');
      const list = api.list(type, namespace, {
        labelSelector: url.searchParams.get('labelSelector') ?? '',
        fieldSelector: url.searchParams.get('fieldSelector') ?? '',
      });
      const items: unknown[] = [];
      for (const item of list.items) {
        const result = api.delete(type, item.metadata.namespace, item.metadata.name as string, { dryRun });
        items.push('metadata' in result.body && (result.body as KubeObject).metadata.name ? result.body : item);
      }
      return sendJson(res, 200, {
        kind: `${type.kind}List`,
        apiVersion: apiVersionOf(type),
        metadata: { resourceVersion: String(api.store.resourceVersion) },
        items,
      });
    }
    throw methodNotAllowed(NOT_ALLOWED);
  }

  /** A list, paged with limit and continue, as JSON or as a Table. */
  private list(req: IncomingMessage, res: ServerResponse, url: URL, { type, namespace }: Target): void {
    const list = this.options.api.list(type, namespace, {
      labelSelector: url.searchParams.get('labelSelector') ?? '',
      fieldSelector: url.searchParams.get('fieldSelector') ?? '',
      limit: Number(url.searchParams.get('limit') ?? 0) || 0,
      continue: url.searchParams.get('continue') ?? '',
    });
    if (wantsTable(req.headers.accept)) {
      const tableOptions: Parameters<typeof toTable>[2] = {
        resourceVersion: list.resourceVersion,
        includeObject: includeObjectOf(url),
      };
      if (list.continue) tableOptions.continue = list.continue;
      if (list.remainingItemCount !== undefined) tableOptions.remainingItemCount = list.remainingItemCount;
      return sendJson(res, 200, toTable(type, list.items, tableOptions));
    }
    const metadata: Record<string, unknown> = { resourceVersion: list.resourceVersion };
    if (list.continue) metadata.continue = list.continue;
    if (list.remainingItemCount !== undefined) metadata.remainingItemCount = list.remainingItemCount;
    sendJson(res, 200, {
      kind: `${type.kind}List`,
      apiVersion: apiVersionOf(type),
      metadata,
      items: list.items,
    });
  }

  /** A path naming one object: get, update, patch (an apply patch may create), delete. */
  private async object({ req, res, url, method, target }: ResourceCall): Promise<void> {
    const { type, namespace } = target;
    const name = target.name as string;
    const { api } = this.options;
    const dryRun = isDryRun(url);
    switch (method) {
      case 'GET':
        requireVerb(type, 'get');
        return this.sendObject(req, res, url, type, api.get(type, namespace, name));
      case 'PUT': {
        requireVerb(type, 'update');
        const warnings: string[] = [];
        return sendJson(
          res,
          200,
          api.update(type, namespace, name, await readBody(req), { dryRun, warnings }),
          warnings,
        );
      }
      case 'PATCH': {
        requireVerb(type, 'patch');
        const contentType = req.headers['content-type'] ?? '';
        // Only an apply patch may create; it answers 201 then.
        const existed = api.store.get(typeKey(type), type.namespaced ? namespace : undefined, name) !== undefined;
        const warnings: string[] = [];
        const result = api.patch(type, namespace, name, contentType, await readBody(req), { dryRun, warnings });
        return sendJson(res, existed ? 200 : 201, result, warnings);
      }
      case 'DELETE': {
        requireVerb(type, 'delete');
        // DeleteOptions may come in the body (client libraries) or the query (kubectl).
        const body = ((await readBody(req)) ?? {}) as {
          preconditions?: { uid?: string; resourceVersion?: string };
          gracePeriodSeconds?: number;
          dryRun?: string[];
        };
        const options: Parameters<Api['delete']>[3] = {
          dryRun: dryRun || (Array.isArray(body.dryRun) && body.dryRun.includes('All')),
        };
        if (body.preconditions) options.preconditions = body.preconditions;
        const grace = url.searchParams.get('gracePeriodSeconds') ?? body.gracePeriodSeconds;
        if (grace !== undefined && grace !== null) options.gracePeriodSeconds = Number(grace);
        return sendJson(res, 200, api.delete(type, namespace, name, options).body);
      }
      default:
        throw methodNotAllowed(NOT_ALLOWED);
    }
  }

  private sendObject(req: IncomingMessage, res: ServerResponse, url: URL, type: ResourceType, obj: KubeObject): void {
    if (wantsTable(req.headers.accept)) {
      return sendJson(
        res,
        200,
        toTable(type, [obj], {
          resourceVersion: obj.metadata.resourceVersion as string,
          includeObject: includeObjectOf(url),
        }),
      );
    }
    sendJson(res, 200, obj);
  }

  private watch(req: IncomingMessage, res: ServerResponse, url: URL, { type, namespace }: Target): void {
    const table = wantsTable(req.headers.accept);
    const includeObject = includeObjectOf(url);
    const bookmarks = flag(url, 'allowWatchBookmarks');
    let headersSent = false;
    let first = true;
    const sendHeaders = (): void => {
      if (headersSent) return;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        'Cache-Control': 'no-cache, private',
      });
      headersSent = true;
    };
    const write = (event: WatchEvent): void => {
      sendHeaders();
      let object: unknown = event.object;
      if (table && (event.type === 'ADDED' || event.type === 'MODIFIED' || event.type === 'DELETED')) {
        object = toTable(type, [event.object as KubeObject], { includeObject, noHeaders: !first });
        first = false;
      }
      res.write(`${JSON.stringify({ type: event.type, object })}\n`);
    };
    const options: Parameters<Api['watch']>[2] = {
      resourceVersion: url.searchParams.get('resourceVersion') ?? '',
      labelSelector: url.searchParams.get('labelSelector') ?? '',
      fieldSelector: url.searchParams.get('fieldSelector') ?? '',
      sendInitialEvents: flag(url, 'sendInitialEvents'),
      allowWatchBookmarks: bookmarks,
    };
    const watch = this.options.api.watch(type, namespace, options, write);
    sendHeaders();
    res.flushHeaders();
    if (watch.expired) {
      res.end();
      return;
    }
    this.openStreams.add(res);
    this.watchStreams.add(res);
    const timers: NodeJS.Timeout[] = [];
    if (bookmarks) {
      timers.push(
        setInterval(
          () => write({ type: 'BOOKMARK', object: this.options.api.bookmark(type) }),
          this.options.bookmarkIntervalMs,
        ),
      );
    }
    const timeoutSeconds = Number(url.searchParams.get('timeoutSeconds') ?? 0);
    if (timeoutSeconds > 0) timers.push(setTimeout(() => res.end(), timeoutSeconds * 1000));
    const stop = (): void => {
      watch.stop();
      for (const timer of timers) clearTimeout(timer);
      this.openStreams.delete(res);
      this.watchStreams.delete(res);
    };
    res.on('close', stop);
    res.on('finish', stop);
  }

  private logs(res: ServerResponse, url: URL, namespace: string, name: string): void {
    this.options.api.get(PODS, namespace, name);
    const console_ = this.consoleFor(namespace, name);
    const timestamps = flag(url, 'timestamps');
    const format = (line: { time: string; text: string }): string =>
      timestamps ? `${line.time} ${line.text}\n` : `${line.text}\n`;
    let lines = console_.logs;
    const tail = url.searchParams.get('tailLines');
    if (tail !== null) lines = Number(tail) > 0 ? lines.slice(-Number(tail)) : [];
    // As the kubelet reads a log: the last tailLines lines, then those not older than sinceSeconds.
    const since = url.searchParams.get('sinceSeconds');
    if (since !== null) {
      const seconds = Number(since);
      if (!Number.isInteger(seconds) || seconds < 1) {
        throw new StatusError(
          422,
          'Invalid',
          `PodLogOptions "${name}" is invalid: sinceSeconds: Invalid value: ${since}: must be greater than 0`,
        );
      }
      const from = Date.now() - seconds * 1000;
      lines = lines.filter((line) => Date.parse(line.time) >= from);
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
    res.write(lines.map(format).join(''));
    if (!flag(url, 'follow')) {
      res.end();
      return;
    }
    const onLog = (line: { time: string; text: string }): void => {
      res.write(format(line));
    };
    console_.on('log', onLog);
    this.openStreams.add(res);
    const unsubscribe = this.options.api.store.subscribe((event) => {
      if (
        event.type === 'DELETED' &&
        event.typeKey === '/pods' &&
        event.object.metadata.namespace === namespace &&
        event.object.metadata.name === name
      )
        res.end();
    });
    res.on('close', () => {
      console_.off('log', onLog);
      unsubscribe();
      this.openStreams.delete(res);
    });
  }

  private consoleFor(namespace: string, name: string): PodConsole {
    return this.options.consoles.get({ namespace, name, describe: () => this.options.describePod(namespace, name) });
  }

  private async scale(req: IncomingMessage, res: ServerResponse, method: string, target: Target): Promise<void> {
    const { api } = this.options;
    const { type, namespace } = target;
    const name = target.name as string;
    const toScale = (obj: KubeObject): object => ({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace,
        uid: obj.metadata.uid,
        resourceVersion: obj.metadata.resourceVersion,
        creationTimestamp: obj.metadata.creationTimestamp,
      },
      spec: { replicas: (obj.spec as { replicas?: number } | undefined)?.replicas ?? 0 },
      status: { replicas: (obj.status as { replicas?: number } | undefined)?.replicas ?? 0 },
    });
    const current = api.get(type, namespace, name);
    if (method === 'GET') return sendJson(res, 200, toScale(current));
    const body = (await readBody(req)) as { spec?: { replicas?: number } } | undefined;
    let replicas: number | undefined;
    if (method === 'PUT') replicas = body?.spec?.replicas;
    else if (method === 'PATCH') {
      const contentType = req.headers['content-type'] ?? '';
      if (contentType.includes('json-patch')) {
        const ops = (body ?? []) as unknown as { op: string; path: string; value?: number }[];
        replicas = ops.find((op) => op.path === '/spec/replicas')?.value;
      } else {
        replicas = body?.spec?.replicas;
      }
    } else throw methodNotAllowed(NOT_ALLOWED);
    if (typeof replicas !== 'number') throw badRequest('spec.replicas must be a number');
    const updated = api.update(type, namespace, name, { ...current, spec: { ...(current.spec as object), replicas } });
    sendJson(res, 200, toScale(updated));
  }

  /** Set by the Agones controller: answers a GameServerAllocation. */
  allocate: (namespace: string, body: unknown) => Promise<object> = () =>
    Promise.reject(badRequest('allocation is not available'));

  upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const fail = (err: StatusError): void => {
      const text = JSON.stringify(err.toStatus());
      socket.end(
        `HTTP/1.1 ${err.code} ${err.reason}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
      );
    };
    try {
      if (!this.authorized(req)) throw unauthorized();
      const url = new URL(req.url ?? '/', 'http://kube-lite');
      const target = resolvePath(url.pathname);
      if (
        !target ||
        target.type !== PODS ||
        !target.name ||
        (target.subresource !== 'exec' && target.subresource !== 'attach')
      ) {
        throw new StatusError(404, 'NotFound', 'the server could not find the requested resource');
      }
      if (!ExecServer.acceptsProtocols(req.headers['sec-websocket-protocol'])) {
        throw badRequest(
          'unable to upgrade connection: none of the offered subprotocols is supported ' +
            '(want v5.channel.k8s.io or v4.channel.k8s.io)',
        );
      }
      const pod = this.options.api.get(PODS, target.namespace, target.name);
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      if (phase !== 'Running') {
        throw badRequest(`unable to upgrade connection: container not found ("${target.name}")`);
      }
      const request = parseExecQuery(url, target.subresource === 'attach');
      if (!request.attach && request.command.length === 0) throw badRequest('you must specify at least 1 command');
      this.exec.upgrade(req, socket, head, request, this.consoleFor(target.namespace as string, target.name));
    } catch (err) {
      fail(err instanceof StatusError ? err : new StatusError(500, 'InternalError', (err as Error).message));
    }
  };

  /** Ends every open watch as a server-side timeout would; clients are expected to resume. */
  endWatches(): void {
    for (const res of [...this.watchStreams]) res.end();
  }

  close(): void {
    this.exec.close();
    for (const res of this.openStreams) res.end();
    this.openStreams.clear();
  }
}

function includeObjectOf(url: URL): IncludeObject {
  const value = url.searchParams.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}
