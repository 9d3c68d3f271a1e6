import { useEffect, useId, useRef, useState } from 'react';
import { ErrorNotice, Panel, failure } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import type { ServerRef } from './api';
import { appendBounded, followLog, tailLog, MAX_LOG_LINES } from './log-stream';

type Mode = { mode: 'idle' | 'loading' | 'following' } | { mode: 'ended'; reason: string };

function modeText(mode: Mode, count: number): string {
  const shown = `${count} line${count === 1 ? '' : 's'} shown`;
  if (mode.mode === 'loading') return 'Loading the log…';
  if (mode.mode === 'following') return `Following the log; ${shown}.`;
  if (mode.mode === 'ended') return `The follow ended: ${mode.reason}; ${shown}.`;
  return count === 0 ? 'No log loaded yet.' : `${shown}.`;
}

/** The log's lines and what is being done with it: its last lines read, or a follow until stopped. */
function useLog(server: ServerRef, tail: number) {
  const [lines, setLines] = useState<string[]>([]);
  const [mode, setMode] = useState<Mode>({ mode: 'idle' });
  const [error, setError] = useState<string | undefined>();
  const abortRef = useRef<AbortController | undefined>(undefined);
  useEffect(() => () => abortRef.current?.abort(), []);
  const start = async (follow: boolean) => {
    abortRef.current?.abort();
    const abort = new AbortController();
    abortRef.current = abort;
    setError(undefined);
    setLines([]);
    setMode({ mode: follow ? 'following' : 'loading' });
    try {
      if (!follow) {
        setLines(appendBounded([], await tailLog(server, tail, abort.signal)));
        setMode({ mode: 'idle' });
        return;
      }
      const reason = await followLog(server, tail, (more) => setLines((l) => appendBounded(l, more)), abort.signal);
      setMode({ mode: 'ended', reason });
    } catch (err) {
      if (abort.signal.aborted) return;
      setError(failure(err));
      setMode({ mode: 'idle' });
    }
  };
  const stop = () => {
    abortRef.current?.abort();
    setMode({ mode: 'ended', reason: 'you stopped it' });
  };
  return { lines, mode, error, start, stop };
}

/** The container's log: its last lines, or followed live until Stop (the last 2,000 lines kept). */
export function ServerLogs({ session, server }: { session: PanelSession; server: ServerRef }) {
  const reasonId = useId();
  const linesId = useId();
  const [tail, setTail] = useState(200);
  const { lines, mode, error, start, stop } = useLog(server, tail);
  const allowed = can(session, 'logs', 'get', server.namespace);
  const disabled = !allowed || mode.mode === 'loading';
  const describedBy = allowed ? undefined : reasonId;
  return (
    <Panel title="Logs">
      {!allowed && (
        <p id={reasonId} className="why">
          {whyNot(session, 'logs', 'get')}
        </p>
      )}
      <form
        className="log-bar"
        onSubmit={(e) => {
          e.preventDefault();
          void start(false);
        }}
      >
        <label htmlFor={linesId}>Last lines</label>
        <input
          id={linesId}
          type="number"
          min={1}
          max={MAX_LOG_LINES}
          value={tail}
          onChange={(e) => setTail(Math.min(MAX_LOG_LINES, Math.max(1, Number(e.target.value) || 1)))}
        />
        <button className="button" type="submit" disabled={disabled} aria-describedby={describedBy}>
          Show
        </button>
        {mode.mode === 'following' ? (
          <button className="button" type="button" onClick={stop}>
            Stop
          </button>
        ) : (
          <button
            className="button"
            type="button"
            disabled={disabled}
            aria-describedby={describedBy}
            onClick={() => void start(true)}
          >
            Follow
          </button>
        )}
      </form>
      <p role="status" className="log-status">
        {modeText(mode, lines.length)}
      </p>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
      <pre
        className="log"
        role="log"
        aria-live="off"
        aria-label={`Log of ${server.name}`}
        tabIndex={0}
        data-testid="log"
      >
        {lines.join('\n')}
      </pre>
    </Panel>
  );
}
