import { ApiError, panelUrl } from '../../lib/api';
import { serverPath } from './api';
import type { ServerRef } from './api';
import { parseEvents } from './log-lines';

export { MAX_LOG_LINES, appendBounded } from './log-lines';

async function refusal(res: Response): Promise<ApiError> {
  if (res.status === 401) window.dispatchEvent(new Event('gsp:signed-out'));
  let detail = '';
  try {
    const problem = (await res.json()) as { detail?: unknown };
    if (typeof problem.detail === 'string') detail = problem.detail;
  } catch {
    // No problem document: the status says enough.
  }
  const sentence = detail === '' ? `The control plane refused the log (HTTP ${res.status}).` : detail;
  return new ApiError(/[.!?]$/.test(sentence) ? sentence : `${sentence}.`, res.status);
}

async function request(ref: ServerRef, query: string, accept: string, signal: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(panelUrl(`${serverPath(ref)}/logs?${query}`), {
      credentials: 'same-origin',
      headers: { accept },
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ApiError('The panel could not reach the control plane; check your connection and try again.', 0);
  }
  if (!res.ok) throw await refusal(res);
  return res;
}

/** The last `lines` lines of the game server's log. */
export async function tailLog(ref: ServerRef, lines: number, signal: AbortSignal): Promise<string[]> {
  const res = await request(ref, `tailLines=${lines}`, 'text/plain', signal);
  const text = await res.text();
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/**
 * Follows the log as Server-Sent Events read through fetch (whose refusal, unlike EventSource's,
 * has a body to show): `onLines` for each batch of lines, resolving with the reason it ended.
 */
export async function followLog(
  ref: ServerRef,
  tail: number,
  onLines: (lines: string[]) => void,
  signal: AbortSignal,
): Promise<string> {
  const res = await request(ref, `tailLines=${tail}&follow=true`, 'text/event-stream', signal);
  const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (reader === undefined) return 'the stream had no body';
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return 'the stream closed';
    const { events, rest } = parseEvents(buffered + value);
    buffered = rest;
    const lines = events.filter((e) => e.event === 'message').map((e) => e.data);
    if (lines.length > 0) onLines(lines);
    const end = events.find((e) => e.event === 'end');
    if (end !== undefined) return end.data;
  }
}
