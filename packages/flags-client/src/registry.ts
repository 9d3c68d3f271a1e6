/** Where a flag value can be stored. */
export type FlagScopeType = 'platform' | 'cluster';

export interface FlagDefinition {
  readonly key: string;
  readonly type: 'boolean';
  readonly description: string;
  /** Built-in value used when neither env pin nor any stored row decides. */
  readonly defaultValue: boolean;
  /** Environment variable that pins the flag in a process when set. */
  readonly envVar: string;
  readonly scopes: readonly FlagScopeType[];
}

export const CLI_ACCESS_ENABLED = 'cli_access.enabled';

/** Every flag the platform knows. A second flag is one more entry here. */
export const FLAGS: readonly FlagDefinition[] = [
  {
    key: CLI_ACCESS_ENABLED,
    type: 'boolean',
    description: 'kubectl access to customer clusters through the cluster proxy',
    defaultValue: true,
    envVar: 'SERVICE_CLI_ACCESS_ENABLED',
    scopes: ['platform', 'cluster'],
  },
];

const byKey = new Map(FLAGS.map((flag) => [flag.key, flag]));

export function findFlag(key: string): FlagDefinition | undefined {
  return byKey.get(key);
}
