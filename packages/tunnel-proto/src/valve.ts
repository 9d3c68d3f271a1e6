/**
 * Holds a source (a socket, a request, an upstream response) while any reason holds it, and lets
 * it flow again when the last reason is released: the far end asked to pause, and the tunnel is
 * backed up, are separate reasons, and either alone must keep the source paused.
 */
export class Valve {
  private readonly held = new Set<string>();

  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  get closed(): boolean {
    return this.held.size > 0;
  }

  hold(reason: string): void {
    if (this.held.has(reason)) return;
    this.held.add(reason);
    if (this.held.size === 1) this.pause();
  }

  release(reason: string): void {
    if (this.held.delete(reason) && this.held.size === 0) this.resume();
  }
}

/**
 * Writes chunks to a target that may fall behind (a kubectl client, an upgraded socket, a request
 * body): when a write is refused, `pause` is called once, and `resume` once the target drained.
 * Both ends of the tunnel answer a slow reader this way, by pausing that one stream at the far end.
 */
export function drainingWriter(
  pause: () => void,
  resume: () => void,
): (target: NodeJS.WritableStream, chunk: Uint8Array) => void {
  let paused = false;
  const drained = () => {
    paused = false;
    resume();
  };
  return (target, chunk) => {
    if (target.write(chunk) || paused) return;
    paused = true;
    pause();
    target.once('drain', drained);
  };
}
