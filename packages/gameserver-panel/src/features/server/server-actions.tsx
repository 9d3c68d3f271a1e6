import { useId, useState } from 'react';
import { DELETING_SHUTDOWN, RUN_ACTION, shutdownDeletes } from '@gsp/control-plane/contract';
import { ErrorNotice, Modal, Panel, failure } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import { ActionAnswerView } from './action-answer';
import { runAction } from './api';
import { ArgsField, argvOf } from './args-field';
import { whyActionCannot } from './can-run';
import type { ProfileState } from './can-run';
import type { ActionAnswer, GameServerView, ProfileSummary } from './types';

/** One button of the actions list: what it runs and what it takes. */
interface ActionSpec {
  name: string;
  about: string;
  /** `free`: any argv (a profile command); `duration`: reserve's one arg; `none`. */
  args: 'none' | 'duration' | 'free';
}

const BUILT_IN: ActionSpec[] = [
  { name: 'allocate', about: 'Allocate it, as a matchmaker would (Ready only).', args: 'none' },
  {
    name: 'reserve',
    about: 'Keep it out of allocation for a while, such as 30s or 5m (0: until released).',
    args: 'duration',
  },
  { name: 'restart', about: "Run the profile's restart command in the container.", args: 'none' },
];

export function specsOf(profile: ProfileSummary | undefined): ActionSpec[] {
  const own = Object.entries(profile?.actions ?? {}).map(([name, action]): ActionSpec => ({
    name,
    about: action.description ?? `Runs ${action.command.join(' ')} (arguments are added to it).`,
    args: 'free',
  }));
  return [...BUILT_IN, ...own.sort((a, b) => (a.name < b.name ? -1 : 1))];
}

interface Props {
  session: PanelSession;
  server: GameServerView;
  profile: ProfileState;
}

/** The built-in and the profile's actions, each with its arguments, and the answer of the last one run. */
export function ServerActions({ session, server, profile }: Props) {
  const reasonId = useId();
  const [answer, setAnswer] = useState<ActionAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState<string | undefined>();
  const { resource, verb } = RUN_ACTION.permission;
  const allowed = can(session, resource, verb, server.namespace);
  const run = async (action: string, args: string[]) => {
    setBusy(action);
    setError(undefined);
    setAnswer(undefined);
    try {
      setAnswer(await runAction(server, action, args));
    } catch (err) {
      setError(failure(err));
    } finally {
      setBusy(undefined);
    }
  };
  const common = { disabled: !allowed || busy !== undefined, describedBy: allowed ? undefined : reasonId, run };
  // The role's reason, shown once above, goes first; then each row's own, from the server's state.
  const whyNow = (action: string) => (allowed ? whyActionCannot(action, server, profile) : undefined);
  const summary = profile.state === 'done' ? profile.profile : undefined;
  return (
    <Panel title="Actions">
      {!allowed && (
        <p id={reasonId} className="why">
          {whyNot(session, resource, verb)}
        </p>
      )}
      <ul className="action-list">
        {specsOf(summary).map((spec) => (
          <ActionRow key={spec.name} spec={spec} whyNow={whyNow(spec.name)} {...common} />
        ))}
        <ShutdownRow session={session} server={server} profile={summary} whyNow={whyNow('shutdown')} {...common} />
      </ul>
      <div className="action-result" role="status">
        {busy !== undefined && <p>Running {busy}…</p>}
        {answer !== undefined && <ActionAnswerView answer={answer} />}
      </div>
      {error !== undefined && <ErrorNotice>{error}</ErrorNotice>}
    </Panel>
  );
}

interface RowProps {
  disabled: boolean;
  describedBy: string | undefined;
  /** Why the action cannot succeed on the server as it is now, when it cannot. */
  whyNow: string | undefined;
  run: (action: string, args: string[]) => Promise<void>;
}

/** The sentence saying why a row's action cannot run now, which its button points at. */
function WhyNow({ id, why }: { id: string; why: string | undefined }) {
  if (why === undefined) return null;
  return (
    <p id={id} className="why">
      {why}
    </p>
  );
}

function ActionRow({ spec, disabled, describedBy, whyNow, run }: RowProps & { spec: ActionSpec }) {
  const [args, setArgs] = useState('');
  const aboutId = useId();
  const whyId = useId();
  const reason = whyNow === undefined ? describedBy : whyId;
  const described = [aboutId, reason].filter((id) => id !== undefined).join(' ');
  return (
    <li className="action">
      <form
        className="action-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run(spec.name, spec.args === 'none' ? [] : argvOf(args, spec.args));
        }}
      >
        <button
          className="button"
          type="submit"
          disabled={disabled || whyNow !== undefined}
          aria-describedby={described}
        >
          {spec.name}
        </button>
        <span id={aboutId} className="action-about">
          {spec.about}
        </span>
        <WhyNow id={whyId} why={whyNow} />
        {spec.args !== 'none' && (
          <ArgsField
            action={spec.name}
            kind={spec.args}
            value={args}
            onChange={setArgs}
            disabled={disabled || whyNow !== undefined}
          />
        )}
      </form>
    </li>
  );
}

/**
 * Shutdown, after a confirmation naming its consequence: Agones deletes a Shutdown server, and its
 * storage with it. An Allocated server (players on it) needs `force`, and deleting needs the right to.
 */
function ShutdownRow({
  session,
  server,
  profile,
  disabled,
  describedBy,
  whyNow,
  run,
}: RowProps & Omit<Props, 'profile'> & { profile: ProfileSummary | undefined }) {
  const [confirming, setConfirming] = useState(false);
  const deletes = shutdownDeletes(server.state, profile?.storage !== undefined);
  const { resource, verb } = DELETING_SHUTDOWN.permission;
  const mayDelete = can(session, resource, verb, server.namespace);
  const whyId = useId();
  const blocked = deletes && !mayDelete && describedBy === undefined;
  const nowId = useId();
  const lost = server.state === 'Allocated' ? 'it with players on it' : 'its storage';
  return (
    <li className="action">
      <div className="action-form">
        <button
          type="button"
          className="button button-danger"
          disabled={disabled || blocked || whyNow !== undefined}
          aria-describedby={blocked ? whyId : whyNow !== undefined ? nowId : describedBy}
          onClick={() => setConfirming(true)}
        >
          shutdown
        </button>
        <span className="action-about">Shut it down; Agones then deletes it.</span>
        <WhyNow id={nowId} why={whyNow} />
        {blocked && (
          <p id={whyId} className="why">
            Shutting down this server deletes {lost}: {whyNot(session, resource, verb)}
          </p>
        )}
      </div>
      {confirming && (
        <Modal title={`Shut down ${server.name}?`} onClose={() => setConfirming(false)}>
          <p>
            Agones deletes a game server once it is shut down
            {profile?.storage !== undefined ? ', and its storage goes with it (take a snapshot first to keep it)' : ''}.
            {server.state === 'Allocated' && ' Players are on it now: they are disconnected.'}
          </p>
          <div className="actions">
            <button className="button button-secondary" type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-danger"
              onClick={() => {
                setConfirming(false);
                void run('shutdown', server.state === 'Allocated' ? ['force'] : []);
              }}
            >
              Shut down {server.name}
            </button>
          </div>
        </Modal>
      )}
    </li>
  );
}
