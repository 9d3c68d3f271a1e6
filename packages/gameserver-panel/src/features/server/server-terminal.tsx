import { useEffect, useId, useRef, useState } from 'react';
import type { Terminal } from '@xterm/xterm';
import { ErrorNotice, Panel, failure } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import type { ServerRef } from './api';
import { TerminalSocket } from './terminal-socket';
import { LineDiscipline } from './line-discipline';
import { paletteColours } from './true-color';
import { useTerminal } from './use-terminal';

type Status =
  | { phase: 'idle' }
  | { phase: 'opening' }
  | { phase: 'open'; state?: string }
  | { phase: 'closed'; reason: string }
  | { phase: 'failed'; message: string };

const DIM = (text: string) => `\x1b[2m${text}\x1b[0m`;

/**
 * Opens the console on `terminal`: what is typed is edited and echoed locally and sent a line at a
 * time; output is written above the line being typed; `state` and `closed` become status lines.
 */
async function openTerminal(ref: ServerRef, term: Terminal, setStatus: (s: Status) => void): Promise<() => void> {
  const line = new LineDiscipline();
  const socket = new TerminalSocket({
    output: (output) => {
      const data = paletteColours(output);
      term.write(line.pending === '' ? data : `\r\x1b[2K${data}${line.pending}`);
    },
    state: (state) => {
      term.write(DIM(`\r\n[state: ${state}]\r\n`) + line.pending);
      setStatus({ phase: 'open', state });
    },
    closed: (said) => {
      const reason = said.replace(/\.$/, '');
      term.options.disableStdin = true;
      term.write(DIM(`\r\n[console closed: ${reason}]\r\n`));
      setStatus({ phase: 'closed', reason });
    },
  });
  const typing = term.onData((data) => {
    const typed = line.type(data);
    term.write(typed.echo);
    if (typed.lines.length > 0) socket.send(typed.lines.join(''));
  });
  const stop = () => {
    typing.dispose();
    socket.close();
  };
  try {
    await socket.open(ref);
  } catch (err) {
    stop();
    throw err;
  }
  term.options.disableStdin = false;
  term.write(DIM(`[console of ${ref.namespace}/${ref.name}: type a command and press Enter]\r\n`));
  term.focus();
  setStatus({ phase: 'open' });
  return stop;
}

function statusText(status: Status): string {
  switch (status.phase) {
    case 'idle':
      return 'Not connected.';
    case 'opening':
      return 'Connecting…';
    case 'open':
      return status.state === undefined ? 'Connected.' : `Connected; the game server is ${status.state}.`;
    default:
      return 'Closed.';
  }
}

/** The game server's console in a terminal, opened (and reopened) only by the user's click. */
export function ServerTerminal({ session, server }: { session: PanelSession; server: ServerRef }) {
  const host = useRef<HTMLDivElement>(null);
  const reasonId = useId();
  const label = `Console of ${server.namespace}/${server.name}`;
  const terminal = useTerminal(host, label);
  const [status, setStatus] = useState<Status>({ phase: 'idle' });
  const stopRef = useRef<(() => void) | undefined>(undefined);
  const allowed = can(session, 'console', 'execute', server.namespace);
  useEffect(() => () => stopRef.current?.(), []);
  const open = async () => {
    if (terminal === undefined) return;
    stopRef.current?.();
    setStatus({ phase: 'opening' });
    try {
      stopRef.current = await openTerminal(server, terminal, setStatus);
    } catch (err) {
      setStatus({ phase: 'failed', message: failure(err) });
    }
  };
  const close = () => {
    stopRef.current?.();
    stopRef.current = undefined;
    if (terminal !== undefined) terminal.options.disableStdin = true;
    setStatus({ phase: 'closed', reason: 'you closed it' });
  };
  const connected = status.phase === 'open' || status.phase === 'opening';
  return (
    <Panel title="Console">
      {!allowed && (
        <p id={reasonId} className="why">
          {whyNot(session, 'console', 'execute')}
        </p>
      )}
      <div className="console-bar">
        {connected ? (
          <button className="button" type="button" onClick={close}>
            Close console
          </button>
        ) : (
          <button
            className="button"
            type="button"
            disabled={!allowed || terminal === undefined}
            aria-describedby={allowed ? undefined : reasonId}
            onClick={() => void open()}
          >
            {status.phase === 'idle' ? 'Open console' : 'Reconnect console'}
          </button>
        )}
        <p className="console-status" role="status" data-testid="console-status">
          {statusText(status)}
        </p>
      </div>
      {status.phase === 'closed' && (
        <p className="notice console-closed" role="alert">
          The console closed: {status.reason}.
        </p>
      )}
      {status.phase === 'failed' && <ErrorNotice>{status.message}</ErrorNotice>}
      <div
        className={`terminal${connected ? '' : ' terminal-closed'}`}
        ref={host}
        role="group"
        aria-label={label}
        data-testid="terminal"
      />
    </Panel>
  );
}
