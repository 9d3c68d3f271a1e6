/** What the kit needs of a tap test: somewhere to close what it opened. */
export type Tap = { teardown(fn: () => unknown): void };
