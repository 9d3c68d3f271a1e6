/** The log view's pure parts: the Server-Sent Events of a follow, and the bound on lines kept. */

/** Lines the page keeps: a follow of a chatty server must not fill the tab's memory. */
export const MAX_LOG_LINES = 2000;

/** `lines` with `more` appended, the oldest dropped past MAX_LOG_LINES. */
export function appendBounded(lines: readonly string[], more: readonly string[]): string[] {
  const all = lines.concat(more);
  return all.length > MAX_LOG_LINES ? all.slice(all.length - MAX_LOG_LINES) : all;
}

/** One Server-Sent Event from the logs route: a `data:` line, or `end` with the reason. */
export interface LogEvent {
  event: string;
  data: string;
}

/** Splits an event stream's text into whole events; the unfinished rest is returned to be continued. */
export function parseEvents(text: string): { events: LogEvent[]; rest: string } {
  const blocks = text.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? '';
  const events = blocks.flatMap((block) => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    }
    return data.length > 0 || event !== 'message' ? [{ event, data: data.join('\n') }] : [];
  });
  return { events, rest };
}
