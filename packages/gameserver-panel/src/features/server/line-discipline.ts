/**
 * A terminal's cooked mode for the console: the game reads whole lines on stdin (kube-lite's and
 * a real server's console alike), and nothing echoes what is typed, so the page does it. Typed
 * text is echoed and kept until Enter sends it with a trailing newline; Backspace edits it;
 * Ctrl+C drops it and Ctrl+U clears it. Pasted text is handled character by character.
 */
export interface Typed {
  /** What to write to the terminal (the echo). */
  echo: string;
  /** Whole lines to send, each ending in "\n". */
  lines: string[];
}

const ERASE = '\b \b';
/** Arrow and function keys (CSI and SS3 sequences): no line editing beyond Backspace. */
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/g;
/** The longest line kept, in UTF-16 units: the console refuses an input message over 4,096 bytes. */
export const MAX_LINE = 1000;

export class LineDiscipline {
  private line = '';

  /** The line being typed, not sent yet (rewritten after output that arrives meanwhile). */
  get pending(): string {
    return this.line;
  }

  /** What `data` (xterm's onData: keys or a paste) echoes and sends. */
  type(data: string): Typed {
    const typed: Typed = { echo: '', lines: [] };
    // One code point at a time, so Backspace never splits a surrogate pair.
    for (const char of data.replace(ESCAPE_SEQUENCE, '').replace(/\r\n/g, '\r')) this.key(char, typed);
    return typed;
  }

  private key(char: string, typed: Typed): void {
    if (char === '\r' || char === '\n') {
      typed.lines.push(`${this.line}\n`);
      typed.echo += '\r\n';
      this.line = '';
    } else if (char === '\x7f' || char === '\b') {
      if (this.line === '') return;
      this.line = [...this.line].slice(0, -1).join('');
      typed.echo += ERASE;
    } else if (char === '\x03') {
      typed.echo += '^C\r\n';
      this.line = '';
    } else if (char === '\x15') {
      typed.echo += ERASE.repeat([...this.line].length);
      this.line = '';
    } else if (char >= ' ' && char !== '\x7f' && this.line.length < MAX_LINE) {
      this.line += char;
      typed.echo += char;
    }
    // Other control characters are ignored.
  }
}
