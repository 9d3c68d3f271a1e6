export { FLAGS, CLI_ACCESS_ENABLED, findFlag } from './registry.js';
export type { FlagDefinition, FlagScopeType } from './registry.js';
export { resolveFlag, readEnvPin, InvalidEnvPinError } from './evaluate.js';
export type { FlagSource, Resolution, StoredValues } from './evaluate.js';
export { parseDuration } from './duration.js';
