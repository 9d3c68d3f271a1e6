/** What the agent reports as it works, for metrics; every hook is optional. */
export interface AgentEvents {
  /** The API server answered a request from the tunnel with `status` (101 for an upgrade). */
  response?(status: number): void;
  /** A request from the tunnel got no answer: the API server could not be reached, or refused the request. */
  failure?(): void;
  /**
   * A tunnel connection (or an attempt) ended: `ok` when the proxy closed it, else the Connect code
   * (`already_exists`: the dial reached a replica the agent already holds).
   */
  ended?(code: string): void;
  /** The proxy asked to pause a stream: its kubectl client reads slower than the API server answers. */
  pause?(): void;
}
