export { FLAGS, CLI_ACCESS_ENABLED, findFlag } from './registry.js';
export type { FlagDefinition, FlagScopeType } from './registry.js';
export { resolveFlag, readEnvPin, readEnvPins, InvalidEnvPinError } from './evaluate.js';
export type { FlagSource, Resolution, StoredValues } from './evaluate.js';
export { createFlagsClient, FlagsClient } from './client.js';
export type {
  DetailedEvaluation,
  Evaluation,
  EvaluationContext,
  EvaluationSource,
  FlagChange,
  FlagsClientOptions,
  Logger,
} from './client.js';
export { createOfrepResolver } from './ofrep.js';
export type { OfrepContext, OfrepResolution, OfrepResolver, OfrepResolverOptions } from './ofrep.js';
export { FlagsClientError } from './errors.js';
export type { FlagsClientErrorCode } from './errors.js';
export { LocalEventBus, RedisEventBus, processLocalBus } from './bus.js';
export type { EventBus, EventHandlers, RedisBusOptions } from './bus.js';
