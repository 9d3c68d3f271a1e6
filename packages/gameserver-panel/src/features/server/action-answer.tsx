import { formatDuration } from '../../lib/time';
import type { ActionAnswer } from './types';

/** What an action did: the state it left the server in, or the command's exit code and output. */
export function ActionAnswerView({ answer }: { answer: ActionAnswer }) {
  if ('gameServer' in answer) {
    return (
      <p>
        <strong>{answer.action}</strong>: the game server is now <strong>{answer.gameServer.state}</strong>.
      </p>
    );
  }
  return (
    <div className="action-answer">
      <p>
        <strong>{answer.action}</strong> exited with code <strong>{answer.exitCode}</strong> after{' '}
        {formatDuration(answer.durationMs)}
        {answer.exitCode === 0 ? '.' : ' (it ran, but reported a failure).'}
        {answer.truncated && ' Its output was cut at 64 KiB.'}
      </p>
      <Output label="Standard output" text={answer.stdout} />
      <Output label="Standard error" text={answer.stderr} />
    </div>
  );
}

export function Output({ label, text }: { label: string; text: string }) {
  if (text === '') return null;
  return (
    <figure className="output">
      <figcaption>{label}</figcaption>
      <pre tabIndex={0}>{text}</pre>
    </figure>
  );
}
