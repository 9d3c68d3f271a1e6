import type { CoreV1Api, V1ConfigMap, Watch } from '@kubernetes/client-node';
import type { FastifyBaseLogger } from 'fastify';
import { parseDocument, stringify } from 'yaml';
import { Conflict, NotFound, ServiceUnavailable, withRetryAfter } from '../errors.js';
import { CLUSTER_RETRY_AFTER_SECONDS } from '../kube/errors.js';
import { Informer, InformerStore } from '../kube/informer.js';
import { nameError, validateProfile } from './schema.js';
import type { ProfileError } from './schema.js';
import type { InvalidProfile, Profile } from './types.js';

/** Marks a ConfigMap as a profile; its value is the profile's name. */
export const PROFILE_LABEL = 'gsp.dev/profile';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'gsp-control-plane';
/** The data key holding the profile document (YAML, without the name). */
export const PROFILE_KEY = 'profile.yaml';

/** The ConfigMap that holds profile `name`. */
export function configMapName(name: string): string {
  return `gsp-profile-${name}`;
}

/** A profile ConfigMap read: the profile, or why it cannot be served. */
export type ProfileRead = { profile: Profile } | { invalid: InvalidProfile };

/** The first line of a YAML error says what and where; the lines after it quote the document. */
function yamlMessage(err: { message: string }): string {
  return `${PROFILE_KEY} is not valid YAML: ${(err.message.split('\n')[0] ?? '').replace(/:$/, '')}`;
}

/**
 * The profile a ConfigMap holds (its label names it, its `profile.yaml` describes it), or what is
 * wrong with it. A ConfigMap may be written by hand, so this never throws.
 */
export function readProfileConfigMap(configMap: V1ConfigMap): ProfileRead {
  const name = configMap.metadata?.labels?.[PROFILE_LABEL] ?? '';
  const cmName = configMap.metadata?.name ?? '';
  const invalid = (errors: ProfileError[]): ProfileRead => ({ invalid: { name, configMap: cmName, errors } });
  const badName = nameError(name);
  if (badName !== undefined)
    return invalid([{ pointer: '', message: `the label ${PROFILE_LABEL} (${JSON.stringify(name)}) ${badName}` }]);
  // One ConfigMap per profile, found by name: a second one labelled alike would be ambiguous.
  if (cmName !== configMapName(name)) {
    return invalid([{ pointer: '', message: `the ConfigMap of profile ${name} must be named ${configMapName(name)}` }]);
  }
  const text = configMap.data?.[PROFILE_KEY];
  if (text === undefined) return invalid([{ pointer: '', message: `the ConfigMap has no data key ${PROFILE_KEY}` }]);
  let doc: unknown;
  try {
    // 'error': no process warnings about odd keys of a hand-written document; they show as its errors.
    const parsed = parseDocument(text, { logLevel: 'error' });
    const [error] = parsed.errors;
    if (error !== undefined) return invalid([{ pointer: '', message: yamlMessage(error) }]);
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return invalid([{ pointer: '', message: yamlMessage(err as Error) }]);
  }
  const result = validateProfile(name, doc);
  return 'profile' in result ? result : invalid(result.errors);
}

/**
 * The ConfigMap holding `profile`: `base` (the one it replaces) keeps its other labels,
 * annotations and data keys, and its resourceVersion, so the replace fails if it changed meanwhile.
 */
export function profileConfigMap(profile: Profile, namespace: string, base?: V1ConfigMap): V1ConfigMap {
  const { name, ...doc } = profile;
  const metadata = { ...base?.metadata, managedFields: undefined };
  const labels = { ...metadata.labels, [PROFILE_LABEL]: name, [MANAGED_BY_LABEL]: MANAGED_BY };
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...metadata, name: configMapName(name), namespace, labels },
    data: { ...base?.data, [PROFILE_KEY]: stringify(doc) },
    ...(base?.binaryData ? { binaryData: base.binaryData } : {}),
  };
}

interface Entry {
  uid: string;
  resourceVersion: string;
  read: ProfileRead;
}

/**
 * Whether resourceVersion `a` is older than `b`. They are opaque to clients in principle; every
 * API server we know counts them up, and when one does not, nothing is taken for stale.
 */
function older(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);
}

const notLoaded = (): Error =>
  withRetryAfter(
    new ServiceUnavailable('the profiles have not been loaded from Kubernetes yet'),
    CLUSTER_RETRY_AFTER_SECONDS,
  );

/**
 * Profiles as ConfigMaps labelled `gsp.dev/profile` in the control plane's namespace, so that
 * kubectl and GitOps can manage them too. Reads come from an informer; each ConfigMap is parsed
 * and validated once per resourceVersion, and one that does not validate is reported (logged once
 * per version, by its pointers, never its content) instead of served. Writes answer once this
 * replica's index shows them.
 */
export class ProfileStore extends InformerStore<V1ConfigMap> {
  /** ConfigMap name -> what it holds. */
  private readonly entries = new Map<string, Entry>();
  /** ConfigMaps this replica deleted whose watch event has not come yet: late events about them are stale. */
  private readonly deleted = new Set<string>();

  constructor(
    private readonly core: CoreV1Api,
    watch: Watch,
    private readonly namespace: string,
    private readonly log: FastifyBaseLogger,
  ) {
    super(
      new Informer<V1ConfigMap>(
        'profile ConfigMaps',
        `/api/v1/namespaces/${namespace}/configmaps`,
        watch,
        () => core.listNamespacedConfigMap({ namespace, labelSelector: PROFILE_LABEL }),
        log,
        PROFILE_LABEL,
      ),
    );
    this.informer.onChange((type, configMap) => {
      if (type === 'delete') this.forget(configMap);
      else this.index(configMap);
    });
  }

  private index(configMap: V1ConfigMap): void {
    const cmName = configMap.metadata?.name ?? '';
    const uid = configMap.metadata?.uid ?? '';
    const resourceVersion = configMap.metadata?.resourceVersion ?? '';
    if (this.deleted.has(uid)) return;
    const current = this.entries.get(cmName);
    if (current !== undefined && current.uid === uid) {
      if (current.resourceVersion === resourceVersion || older(resourceVersion, current.resourceVersion)) return;
    }
    const read = readProfileConfigMap(configMap);
    this.entries.set(cmName, { uid, resourceVersion, read });
    if ('invalid' in read) {
      const pointers = read.invalid.errors.map((e) => e.pointer);
      const message = 'a profile ConfigMap does not validate and is not served; GET the profile for the reasons';
      this.log.warn({ configMap: cmName, resourceVersion, pointers }, message);
    }
  }

  private forget(configMap: V1ConfigMap): void {
    const uid = configMap.metadata?.uid ?? '';
    this.deleted.delete(uid);
    const cmName = configMap.metadata?.name ?? '';
    if (this.entries.get(cmName)?.uid === uid) this.entries.delete(cmName);
  }

  /** What the index holds, once it holds every profile ConfigMap. */
  private loaded(): Entry[] {
    if (!this.ready) throw notLoaded();
    return [...this.entries.values()];
  }

  /** The valid profiles, by name. */
  list(): Profile[] {
    return this.loaded()
      .flatMap((e) => ('profile' in e.read ? [e.read.profile] : []))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Profile `name`, when its ConfigMap exists and validates. */
  get(name: string): Profile | undefined {
    if (!this.ready) throw notLoaded();
    const read = this.entries.get(configMapName(name))?.read;
    return read !== undefined && 'profile' in read ? read.profile : undefined;
  }

  /**
   * Why profile `name` is not served: its ConfigMap does not validate, or (when it has none) a
   * ConfigMap labelled with its name is misnamed.
   */
  invalid(name: string): InvalidProfile | undefined {
    const invalids = this.invalidList();
    return invalids.find((i) => i.configMap === configMapName(name)) ?? invalids.find((i) => i.name === name);
  }

  /**
   * Why profile `name` is not served, in the words of a 422: where its ConfigMap is and what does
   * not validate (the pointers address the profile document, which is what a PUT's body is).
   * 404 when there is no such profile at all.
   */
  refusal(name: string): { detail: string; errors: ProfileError[] } {
    const invalid = this.invalid(name);
    if (invalid === undefined) throw new NotFound(`profile ${name} not found`);
    const where = `ConfigMap ${invalid.configMap} in namespace ${this.namespace}`;
    const why = invalid.errors.map((e) => e.message).join('; ');
    const detail =
      `profile ${name} is not served: ${where} does not validate: ${why}. ` +
      'Fix it with kubectl, or PUT the profile again';
    return { detail, errors: invalid.errors };
  }

  /** Every profile ConfigMap that does not validate, by ConfigMap name. */
  invalidList(): InvalidProfile[] {
    return this.loaded()
      .flatMap((e) => ('invalid' in e.read ? [e.read.invalid] : []))
      .sort((a, b) => (a.configMap < b.configMap ? -1 : a.configMap > b.configMap ? 1 : 0));
  }

  private async read(cmName: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace: this.namespace, name: cmName });
    } catch (err) {
      if (err instanceof NotFound) return undefined;
      throw err;
    }
  }

  /**
   * Creates or replaces the ConfigMap of `profile` (a valid one: see validateProfile). A
   * ConfigMap of that name that is not a profile is left alone (409). Another writer between our
   * read and write makes us read again, a few times, so the last PUT wins.
   */
  async put(name: string, profile: Profile): Promise<{ profile: Profile; created: boolean }> {
    const cmName = configMapName(name);
    const namespace = this.namespace;
    for (let attempt = 1; ; attempt++) {
      const existing = await this.read(cmName);
      if (existing !== undefined && existing.metadata?.labels?.[PROFILE_LABEL] === undefined) {
        const why = `it has no label ${PROFILE_LABEL}`;
        throw new Conflict(
          `ConfigMap ${cmName} in namespace ${namespace} exists and is not a profile (${why}); ` +
            'remove or rename it first',
        );
      }
      try {
        const written =
          existing === undefined
            ? await this.core.createNamespacedConfigMap({ namespace, body: profileConfigMap(profile, namespace) })
            : await this.core.replaceNamespacedConfigMap({
                namespace,
                name: cmName,
                body: profileConfigMap(profile, namespace, existing),
              });
        this.index(written);
        return { profile, created: existing === undefined };
      } catch (err) {
        // Created, changed or deleted since our read.
        const raced = err instanceof Conflict || (err instanceof NotFound && existing !== undefined);
        if (raced && attempt < 3) continue;
        if (raced) throw new Conflict(`profile ${name} is being changed by someone else at the same time; try again`);
        throw err;
      }
    }
  }

  /** Deletes profile `name`'s ConfigMap; 404 when there is no profile of that name. */
  async delete(name: string): Promise<void> {
    const cmName = configMapName(name);
    const existing = await this.read(cmName);
    const uid = existing?.metadata?.uid;
    if (existing === undefined || uid === undefined || existing.metadata?.labels?.[PROFILE_LABEL] === undefined) {
      throw new NotFound(`profile ${name} not found`);
    }
    try {
      await this.core.deleteNamespacedConfigMap({
        namespace: this.namespace,
        name: cmName,
        body: { preconditions: { uid } },
      });
    } catch (err) {
      if (err instanceof NotFound) throw new NotFound(`profile ${name} not found`);
      if (err instanceof Conflict) throw new Conflict(`profile ${name} was replaced while being deleted; try again`);
      throw err;
    }
    this.deleted.add(uid);
    if (this.entries.get(cmName)?.uid === uid) this.entries.delete(cmName);
  }
}
