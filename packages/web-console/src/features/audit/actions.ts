/** The actions the API server records, in words; the filter offers these. */
export const ACTIONS = new Map([
  ['featureflags.set', 'Flag set'],
  ['featureflags.cleared', 'Flag cleared'],
  ['clusters.registered', 'Cluster registered'],
  ['clusters.deleted', 'Cluster deleted'],
  ['clusters.agent_token.rotated', 'Agent token replaced'],
  ['tenants.members.set', 'Member added or changed'],
  ['tenants.members.removed', 'Member removed'],
]);
