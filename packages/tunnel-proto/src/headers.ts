/**
 * Headers cross the tunnel as one HTTP/1.1 field block ("name: value" lines joined by CRLF).
 * In memory they are flat `[name, value, name, value, ...]` lists, the shape of Node's
 * `rawHeaders`, so repeated names and their order survive the trip.
 */
export function toHeaderBlock(flat: readonly string[]): string {
  let block = '';
  for (let i = 0; i + 1 < flat.length; i += 2) block += `${i === 0 ? '' : '\r\n'}${flat[i]}: ${flat[i + 1]}`;
  return block;
}

/** The flat `[name, value, ...]` list of a header block; lines without a colon are dropped. */
export function fromHeaderBlock(block: string): string[] {
  const flat: string[] = [];
  if (block === '') return flat;
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    flat.push(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return flat;
}

/** A Connect code's enum name as both ends label metrics with it: `PermissionDenied` → `permission_denied`. */
export function codeLabel(name: string): string {
  return name.replace(/[A-Z]/g, (c, i: number) => `${i ? '_' : ''}${c.toLowerCase()}`);
}
