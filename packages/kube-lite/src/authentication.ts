/**
 * `authentication.k8s.io/v1` SelfSubjectReview (what `kubectl auth whoami` asks): the answer is
 * the user the request is served as, after impersonation, as kube-apiserver gives it. kube-lite
 * has one user of its own, the cluster admin every accepted request comes from; impersonation
 * headers replace it like kube-apiserver's impersonation filter does (kube-lite allows any
 * impersonation, as it enforces no RBAC).
 */
import { badRequest } from './api/status.js';

export const AUTHENTICATION_GROUP = 'authentication.k8s.io';
export const AUTHENTICATION_VERSION = 'v1';
export const SELF_SUBJECT_REVIEWS_PATH = `/apis/${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}/selfsubjectreviews`;

/** Who kube-lite serves a request as without impersonation (kubeadm's admin is `kubernetes-admin`, alike). */
export const KUBE_LITE_ADMIN = { username: 'kube-lite-admin', groups: ['system:masters', 'system:authenticated'] };

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

const ALL_AUTHENTICATED = 'system:authenticated';
const ANONYMOUS = 'system:anonymous';
const SERVICE_ACCOUNT = /^system:serviceaccount:([^:]+):[^:]+$/;
const EXTRA_PREFIX = 'impersonate-extra-';

/**
 * A request's headers, each with every value it was sent with (Node's `headersDistinct`: groups are not
 * comma-joined).
 */
export type DistinctHeaders = Record<string, string[] | undefined>;

/**
 * The user of a request: its Impersonate-User (with Impersonate-Uid, every Impersonate-Group and
 * Impersonate-Extra-<key>), or kube-lite's admin. As kube-apiserver: a non-anonymous user gets
 * `system:authenticated`, a service account without groups its service-account groups, and extra
 * keys are percent-decoded and lower-cased.
 */
export function requestUser(headers: DistinctHeaders): UserInfo {
  const [username, ...more] = headers['impersonate-user'] ?? [];
  const groups = [...(headers['impersonate-group'] ?? [])];
  const [uid] = headers['impersonate-uid'] ?? [];
  const extra: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    let key: string;
    try {
      key = decodeURIComponent(name.slice(EXTRA_PREFIX.length)).toLowerCase();
    } catch {
      throw badRequest(`the impersonation header ${name} is not percent-encoded correctly`);
    }
    extra[key] = [...(extra[key] ?? []), ...(value ?? [])];
  }
  if (username === undefined) {
    if (groups.length > 0 || uid !== undefined || Object.keys(extra).length > 0)
      throw badRequest('requested impersonation of groups, uid or extra without a user: set Impersonate-User');
    return { username: KUBE_LITE_ADMIN.username, groups: [...KUBE_LITE_ADMIN.groups] };
  }
  if (more.length > 0) throw badRequest('only one Impersonate-User header is allowed');
  const namespace = SERVICE_ACCOUNT.exec(username)?.[1];
  if (namespace !== undefined && groups.length === 0)
    groups.push('system:serviceaccounts', `system:serviceaccounts:${namespace}`);
  if (username !== ANONYMOUS && !groups.includes(ALL_AUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  return {
    username,
    ...(uid === undefined ? {} : { uid }),
    groups,
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/**
 * The created review: what was sent, with the user as `status.userInfo` (kube-apiserver answers 201, stores
 * nothing).
 */
export function selfSubjectReview(body: unknown, user: UserInfo): object {
  const sent = typeof body === 'object' && body !== null ? (body as { metadata?: unknown }) : {};
  const metadata = typeof sent.metadata === 'object' && sent.metadata !== null ? sent.metadata : {};
  return {
    kind: 'SelfSubjectReview',
    apiVersion: `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`,
    metadata: { ...metadata, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
    status: { userInfo: user },
  };
}

/**
 * Discovery's resource list of `authentication.k8s.io/v1` (kube-apiserver also lists tokenreviews, not served
 * here).
 */
export function authenticationResourceList(): object {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: `${AUTHENTICATION_GROUP}/${AUTHENTICATION_VERSION}`,
    resources: [
      {
        name: 'selfsubjectreviews',
        singularName: 'selfsubjectreview',
        namespaced: false,
        kind: 'SelfSubjectReview',
        verbs: ['create'],
      },
    ],
  };
}
