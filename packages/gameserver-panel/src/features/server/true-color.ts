/**
 * xterm.js's DOM renderer gives a 24-bit colour (SGR `38;2;r;g;b`, `48;2;r;g;b`) to its cell as a
 * `style` attribute, which the panel's CSP (no 'unsafe-inline') blocks; palette colours are
 * classes. So output is written with each 24-bit colour turned into the nearest colour of the
 * 256-colour palette's 6x6x6 cube (`38;5;n`), which looks the same to the eye but for subtle tints.
 */

// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[([0-9;]*)m/g;

const level = (channel: number) => Math.round((Math.min(255, Math.max(0, channel)) / 255) * 5);

/** The 256-colour palette index nearest to an RGB colour, in the 6x6x6 cube (16-231). */
export function cubeIndex(r: number, g: number, b: number): number {
  return 16 + 36 * level(r) + 6 * level(g) + level(b);
}

function downgradeParams(params: string): string {
  const parts = params.split(';');
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    if ((part === '38' || part === '48') && parts[i + 1] === '2' && i + 4 < parts.length) {
      const [r, g, b] = parts.slice(i + 2, i + 5).map(Number) as [number, number, number];
      out.push(part, '5', String(cubeIndex(r, g, b)));
      i += 4;
    } else {
      out.push(part);
    }
  }
  return out.join(';');
}

/** `text` with every 24-bit colour of its SGR sequences turned into a 256-palette colour. */
export function paletteColours(text: string): string {
  if (!text.includes('\x1b[')) return text;
  return text.replace(SGR, (whole, params: string) =>
    params.includes('2;') ? `\x1b[${downgradeParams(params)}m` : whole,
  );
}
