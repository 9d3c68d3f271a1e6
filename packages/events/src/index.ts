export { busesConstructed } from './bus.js';
export type { EventBus, EventHandlers } from './bus.js';
export { LocalEventBus, processLocalBus } from './local.js';
export { RedisEventBus } from './redis.js';
export type { RedisBusOptions } from './redis.js';
export { createEventBus } from './create.js';
export type { EventBusOptions } from './create.js';
