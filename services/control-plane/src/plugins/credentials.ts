/** The credentials a request may carry in its headers, in the order the chain tries them. */
export const CREDENTIAL_KINDS = ['apikey', 'bearer', 'basic'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * A credential present on a request, as the header has it (the key, the whole Authorization), a
 * ticket, or the panel's session cookie.
 */
export type Presented = { kind: CredentialKind; value: string } | { kind: 'ticket' | 'session'; value: string };

/** What of a request the chain reads: its two credential headers and the ticket its route accepts. */
export interface CredentialSources {
  apiKey: string | string[] | undefined;
  authorization: string | undefined;
  /** `?ticket=`, only when the route accepts tickets (`config.tickets`) and the request is a GET. */
  ticket: string | undefined;
  /** The panel's session cookie (`gsp_panel`), when sent. */
  cookie: string | undefined;
}

const REALM = 'gsp-control-plane';

/** The `WWW-Authenticate` of a 401 for a credential of each kind that was present and refused. */
export const CHALLENGES: Readonly<Record<CredentialKind, string>> = {
  apikey: `ApiKey realm="${REALM}", header="X-API-Key"`,
  bearer: `Bearer realm="${REALM}", error="invalid_token"`,
  basic: `Basic realm="${REALM}", charset="UTF-8"`,
};

/** The `WWW-Authenticate` values of a 401 for a request that carried no credential: one per kind on. */
export function missingChallenges(enabled: ReadonlySet<CredentialKind>): string[] {
  return CREDENTIAL_KINDS.filter((kind) => enabled.has(kind)).map((kind) =>
    // A missing token is no invalid one.
    kind === 'bearer' ? `Bearer realm="${REALM}"` : CHALLENGES[kind],
  );
}

/**
 * The credential that decides, of the kinds `enabled`: the first present in the order API key,
 * bearer token, Basic; a ticket only when no credential header is; the panel's session cookie
 * only when neither is (a script that sets a header speaks for itself, not for the browser's
 * cookie). A present credential decides even when it will prove invalid: the chain never falls
 * through to the next.
 */
export function credentialOf(sources: CredentialSources, enabled: ReadonlySet<CredentialKind>): Presented | undefined {
  const { apiKey, authorization = '' } = sources;
  // Sent twice, the header is no key: an empty one, refused as every malformed key is.
  if (enabled.has('apikey') && apiKey !== undefined)
    return { kind: 'apikey', value: Array.isArray(apiKey) ? '' : apiKey.trim() };
  const space = authorization.indexOf(' ');
  const scheme = (space < 0 ? authorization : authorization.slice(0, space)).toLowerCase();
  if (enabled.has('bearer') && scheme === 'bearer') return { kind: 'bearer', value: authorization };
  if (enabled.has('basic') && scheme === 'basic') return { kind: 'basic', value: authorization };
  if (sources.ticket !== undefined) return { kind: 'ticket', value: sources.ticket };
  return sources.cookie === undefined ? undefined : { kind: 'session', value: sources.cookie };
}
