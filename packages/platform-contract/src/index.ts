export {
  CLI_ACCESS_DISABLED,
  CLI_ACCESS_DISABLED_BY_TENANT,
  cliAccessDisabledMessage,
  EXPIRY_ACTOR,
  KUBECONFIG_AUDIENCE,
  KUBECONFIG_ISSUER,
  PLATFORM_ADMIN_ACTOR,
  setterOf,
} from './kubeconfig.js';
export type { CliAccessSource, SwitchRecord } from './kubeconfig.js';
export {
  CLUSTER_ID_MAX_LENGTH,
  CONTROL_CHARACTERS,
  DNS_LABEL,
  DNS_LABEL_MAX_LENGTH,
  DNS_LABEL_PATTERN,
  DNS_LABEL_REGEX,
  DNS_LABEL_RULE,
  DNS_SUBDOMAIN,
  DNS_SUBDOMAIN_MAX_LENGTH,
  DNS_SUBDOMAIN_PATTERN,
  DNS_SUBDOMAIN_REGEX,
  NO_CONTROL_CHARACTERS_PATTERN,
  ORG_MAX_LENGTH,
  RESERVED_PREFIX,
  SUBJECT_MAX_LENGTH,
  SUBJECT_PATTERN,
  SUBJECT_RULE,
  hasControlCharacters,
  isDnsLabel,
  isDnsSubdomain,
  isReservedName,
  subjectProblem,
  tokenSubjectProblem,
} from './identifiers.js';
export {
  LONE_SURROGATE,
  REASON_MAX_LENGTH,
  UNSHOWABLE_CHARACTERS,
  WELL_FORMED_RULE,
  characterCount,
  hasLoneSurrogate,
  hasUnshowable,
  hasVisibleCharacter,
  reasonProblem,
  replaceUnshowable,
} from './text.js';
export {
  KUBECTL_PERMISSION,
  PLATFORM_ADMIN_ROLE,
  TENANT_ROLES,
  authorize,
  isPlatformAdmin,
  platformResource,
  rolesWith,
  tenantResource,
  tenantRole,
} from './permissions.js';
export type { PlatformPermission, RoleBinding, TenantRole } from './permissions.js';
export {
  clusterOfAgentToken,
  hashAgentToken,
  newAgentToken,
  readBindings,
  readClusterState,
  readFlagRows,
  switchRecordOf,
} from './clusters.js';
export type { ClusterState, FlagRow, Queryable } from './clusters.js';
export {
  ACCESS_CHANGED_EVENT,
  AGENT_PRESENCE_EVENT,
  CLUSTER_REGISTERED_EVENT,
  CONSOLE_SESSION_ENDED_EVENT,
  FLAG_UPDATED_EVENT,
  isAccessEvent,
  isAgentPresenceEvent,
  isClusterRegisteredEvent,
  isConsoleSessionEndedEvent,
  isFlagEvent,
} from './events.js';
export type {
  AccessChange,
  AccessEvent,
  AgentPresenceEvent,
  ClusterRegisteredEvent,
  ConsoleSessionEndedEvent,
  FlagEvent,
  FlagEventScope,
} from './events.js';
export { enqueueEvent, OUTBOX_CHANNEL_SQL } from './outbox.js';
export {
  agentPresence,
  agentSinceSql,
  dropProxyTunnels,
  dropTunnel,
  expireLeases,
  readPresence,
  recordTunnel,
  renewLeases,
} from './presence.js';
export type { AgentPresence, HeldTunnel, RenewOptions, RenewOutcome, TransactionPool } from './presence.js';
