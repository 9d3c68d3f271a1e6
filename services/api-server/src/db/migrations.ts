/**
 * Schema migrations, applied in order and recorded by name in `schema_migrations`.
 * Kept in code rather than .sql files so the built service needs no asset copying.
 * Never edit an applied migration: add a new entry.
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  {
    name: '001_init',
    sql: `
-- Tenants exist once a platform admin adds their first member.
CREATE TABLE tenants (
  org        text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- One role per subject per resource: \`platform:<id>\` or \`tenant:<org>\`.
CREATE TABLE role_bindings (
  subject    text NOT NULL,
  resource   text NOT NULL,
  role       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subject, resource)
);
CREATE INDEX role_bindings_by_resource ON role_bindings (resource);

CREATE TABLE clusters (
  id               text PRIMARY KEY,
  org              text NOT NULL REFERENCES tenants (org) ON DELETE CASCADE,
  name             text NOT NULL,
  agent_token_hash text NOT NULL UNIQUE,
  created_by       text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org, name)
);

-- Stored flag values: one row per flag and scope. A platform row has no cluster.
CREATE TABLE feature_flags (
  flag_key   text NOT NULL,
  scope_type text NOT NULL CHECK (scope_type IN ('platform', 'cluster')),
  cluster_id text REFERENCES clusters (id) ON DELETE CASCADE,
  value      jsonb NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((scope_type = 'platform') = (cluster_id IS NULL)),
  UNIQUE NULLS NOT DISTINCT (flag_key, cluster_id)
);

CREATE TABLE audit_events (
  id         bigserial PRIMARY KEY,
  action     text NOT NULL,
  actor      text NOT NULL,
  resource   text NOT NULL,
  details    jsonb NOT NULL DEFAULT '{}'::jsonb,
  request_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Written in the same transaction as the change it announces; a relay publishes it.
CREATE TABLE outbox_events (
  id           bigserial PRIMARY KEY,
  event_type   text NOT NULL,
  scope_key    text NOT NULL,
  payload      jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz
);
CREATE INDEX outbox_events_undelivered ON outbox_events (id) WHERE delivered_at IS NULL;
`,
  },
  {
    name: '002_audit_by_tenant',
    sql: `
-- The tenant a row belongs to, so its admins can page through their own rows:
-- \`tenant:<org>\` rows (members) and \`cluster:<id>\` rows (registration, deletion, agent
-- tokens, cluster flags), which name the org in details (flags: in details.scope).
ALTER TABLE audit_events ADD COLUMN org text;
UPDATE audit_events SET org = substr(resource, length('tenant:') + 1) WHERE resource LIKE 'tenant:%';
UPDATE audit_events SET org = coalesce(details->>'org', details->'scope'->>'org') WHERE resource LIKE 'cluster:%';
CREATE INDEX audit_events_by_org ON audit_events (org, id DESC) WHERE org IS NOT NULL;
`,
  },
  {
    name: '003_switch_records_and_agent_presence',
    sql: `
-- Who set a value, why and until when. updated_by and updated_at already say who and when;
-- actor_role is what the actor was at the time (platform-admin, or the tenant role), so a tenant
-- can be told "a platform admin" without the subject. expires_at: cleared then, as a DELETE would.
ALTER TABLE feature_flags ADD COLUMN reason text, ADD COLUMN expires_at timestamptz, ADD COLUMN actor_role text;
CREATE INDEX feature_flags_expiring ON feature_flags (expires_at) WHERE expires_at IS NOT NULL;

-- Each tunnel a proxy replica holds, refreshed by its heartbeat; a row past its lease belongs to
-- a proxy that died without a goodbye and is cleared by the API server.
CREATE TABLE agent_tunnels (
  tunnel_id        text PRIMARY KEY,
  cluster_id       text NOT NULL REFERENCES clusters (id) ON DELETE CASCADE,
  proxy_id         text NOT NULL,
  connected_at     timestamptz NOT NULL DEFAULT now(),
  lease_expires_at timestamptz NOT NULL
);
CREATE INDEX agent_tunnels_by_cluster ON agent_tunnels (cluster_id);
CREATE INDEX agent_tunnels_by_lease ON agent_tunnels (lease_expires_at);
`,
  },
  {
    name: '004_console_sessions',
    sql: `
-- A console sign-in under way: the SHA-256 of its OAuth state (the browser holds the state in a
-- cookie, which binds the callback to the browser that started it), the PKCE verifier and the
-- nonce. Taken (deleted) by the callback; rows nobody came back for are cleared after expires_at.
CREATE TABLE console_logins (
  state_hash    text PRIMARY KEY,
  code_verifier text NOT NULL,
  nonce         text NOT NULL,
  return_to     text NOT NULL,
  expires_at    timestamptz NOT NULL
);

-- A signed-in console: the SHA-256 of the session id its cookie holds (the id itself is never
-- stored), the subject as bearer tokens name it (\`<issuer>#<sub>\`), and the ID token's expiry.
-- Sign-out deletes the row, so every replica refuses the cookie from then on.
CREATE TABLE console_sessions (
  id_hash    text PRIMARY KEY,
  subject    text NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);
`,
  },
  {
    name: '005_console_session_names',
    sql: `
-- What the console calls the signed-in user (the ID token's name, email or preferred_username,
-- one line, no control characters), for display only; NULL for sessions begun before it was kept.
ALTER TABLE console_sessions ADD COLUMN name text;
`,
  },
  {
    name: '006_proxy_replicas',
    sql: `
-- The cluster proxy replicas serving now, each renewing its row with its presence heartbeat
-- (PRESENCE_LEASE): a replica tells its agents how many rows are live and not draining, and an
-- agent keeps one tunnel to each. A draining replica (SIGTERM) sets draining at once, a stopped
-- one deletes its row, a killed one's row expires (any replica deletes expired rows).
CREATE TABLE proxy_replicas (
  replica_id text PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  draining   boolean NOT NULL DEFAULT false
);
`,
  },
  {
    name: '007_audit_export',
    sql: `
-- Audit export: each sink (webhook, otlp) reads audit_events in (xid, id) order from its cursor.
-- xid is the inserting transaction's id: only rows whose transaction is older than every one still
-- running (pg_snapshot_xmin) are read, so a row committed late under a lower id is never skipped
-- (ids are taken at insert, in a different order than commits). Rows before this migration share
-- the migration's xid and go in id order.
ALTER TABLE audit_events ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX audit_events_by_xid ON audit_events (xid, id);

-- How far each sink has delivered (the last row acknowledged), written after each batch: a
-- restart, or another replica taking over the sink, resumes after it.
CREATE TABLE audit_export_cursors (
  sink       text PRIMARY KEY,
  last_xid   xid8 NOT NULL DEFAULT '0',
  last_id    bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Batches a sink refused for good (a 4xx other than 408/429), kept for inspection, not retried.
CREATE TABLE audit_export_poison (
  id         bigserial PRIMARY KEY,
  sink       text NOT NULL,
  first_id   bigint NOT NULL,
  last_id    bigint NOT NULL,
  status     integer NOT NULL,
  reason     text NOT NULL,
  records    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    name: '008_console_login_bounds',
    sql: `
-- Who started each pending console sign-in (the SHA-256 of the client address): an address may
-- have at most CONSOLE_SIGN_IN_LIMIT under way, so anonymous starts cannot fill the table; rows
-- before this migration count for nobody and expire as before.
ALTER TABLE console_logins ADD COLUMN client_hash text NOT NULL DEFAULT '';
CREATE INDEX console_logins_by_client ON console_logins (client_hash, expires_at);
-- The sweep deletes by expiry, on a timer, whether or not anyone signs in.
CREATE INDEX console_logins_by_expiry ON console_logins (expires_at);
`,
  },
  {
    name: '009_subject_names',
    sql: `
-- What people are called, as their identity provider last said at a console sign-in (the
-- session's display name), so pages can show names where they would show subjects: display
-- only, rights always follow the subject. Outlives the session; written again at each sign-in.
CREATE TABLE subject_names (
  subject    text PRIMARY KEY,
  name       text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
];
