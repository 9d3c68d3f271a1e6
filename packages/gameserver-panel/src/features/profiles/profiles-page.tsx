import { useId, useState } from 'react';
import { ErrorNotice, Loading, Panel, useLoad } from '@gsp/ui';
import { can, whyNot } from '../../lib/session';
import type { PanelSession } from '../../lib/session';
import { listProfiles } from './api';
import type { Profile } from './api';
import { DeleteProfileDialog } from './delete-profile';
import { ProfileDetail } from './profile-detail';
import { ProfileForm } from './profile-form';
import './profiles.css';

/** What the page shows under the list: nothing chosen, a profile, its editor, or a new one's. */
type View = { kind: 'none' } | { kind: 'show' | 'edit' | 'delete'; name: string } | { kind: 'create' };

function ProfileList({
  profiles,
  chosen,
  onChoose,
}: {
  profiles: Profile[];
  chosen?: string;
  onChoose: (name: string) => void;
}) {
  if (profiles.length === 0) return <p>There are no profiles yet.</p>;
  return (
    <ul className="profiles">
      {profiles.map((p) => (
        <li key={p.name}>
          <button
            type="button"
            className="profile-pick"
            aria-current={p.name === chosen ? 'true' : undefined}
            onClick={() => onChoose(p.name)}
          >
            {p.name}
          </button>
          {p.description !== undefined && <span className="profile-description">{p.description}</span>}
        </li>
      ))}
    </ul>
  );
}

function NewProfileButton({ why, onClick }: { why: string | undefined; onClick: () => void }) {
  const ids = useId();
  return (
    <>
      <div className="actions profile-new">
        <button
          type="button"
          className="button"
          disabled={why !== undefined}
          aria-describedby={why === undefined ? undefined : `${ids}-why`}
          onClick={onClick}
        >
          New profile
        </button>
      </div>
      {why !== undefined && (
        <p className="why" id={`${ids}-why`}>
          {why}
        </p>
      )}
    </>
  );
}

interface ViewProps {
  view: View;
  list: Profile[];
  chosen: Profile | undefined;
  editWhy: string | undefined;
  deleteWhy: string | undefined;
  setView: (view: View) => void;
  done: (said: string, next: View) => void;
}

/** Under the list: a new profile's form, or the chosen one's facts, editor or deletion. */
function ChosenView({ view, list, chosen, editWhy, deleteWhy, setView, done }: ViewProps) {
  if (view.kind === 'create')
    return (
      <ProfileForm
        taken={new Set(list.map((p) => p.name))}
        onSaved={(saved) => done(`Profile ${saved.name} created.`, { kind: 'show', name: saved.name })}
        onCancel={() => setView({ kind: 'none' })}
      />
    );
  if (chosen === undefined) return null;
  const show: View = { kind: 'show', name: chosen.name };
  if (view.kind === 'edit')
    return (
      <ProfileForm
        key={chosen.name}
        profile={chosen}
        taken={new Set()}
        onSaved={(saved) => done(`Profile ${saved.name} saved.`, { kind: 'show', name: saved.name })}
        onCancel={() => setView(show)}
      />
    );
  return (
    <>
      <ProfileDetail
        profile={chosen}
        editWhy={editWhy}
        deleteWhy={deleteWhy}
        onEdit={() => done('', { kind: 'edit', name: chosen.name })}
        onDelete={() => setView({ kind: 'delete', name: chosen.name })}
      />
      {view.kind === 'delete' && (
        <DeleteProfileDialog
          name={chosen.name}
          onClose={() => setView(show)}
          onDeleted={() => done(`Profile ${chosen.name} deleted.`, { kind: 'none' })}
        />
      )}
    </>
  );
}

/** `#/profiles`: the profiles, one's facts, and (for a role that may) create, edit and delete. */
export function ProfilesPage({ session }: { session: PanelSession }) {
  const [version, setVersion] = useState(0);
  const [view, setView] = useState<View>({ kind: 'none' });
  const [said, setSaid] = useState('');
  const profiles = useLoad(listProfiles, version);
  const editWhy = can(session, 'profiles', 'update') ? undefined : whyNot(session, 'profiles', 'update');
  const deleteWhy = can(session, 'profiles', 'delete') ? undefined : whyNot(session, 'profiles', 'delete');
  const list = profiles.state === 'done' ? profiles.data : [];
  const chosen = view.kind === 'none' || view.kind === 'create' ? undefined : list.find((p) => p.name === view.name);
  const done = (text: string, next: View) => {
    setSaid(text);
    setView(next);
    if (text !== '') setVersion((v) => v + 1);
  };
  const props = { view, list, chosen, editWhy, deleteWhy, setView, done };

  return (
    <Panel title="Profiles">
      <p className="profile-intro">
        A profile is the template a game server is created from: image, ports, resources and actions.
      </p>
      <NewProfileButton why={editWhy} onClick={() => done('', { kind: 'create' })} />
      <p role="status" className="profile-said">
        {said}
      </p>
      {profiles.state === 'loading' && <Loading what="profiles" />}
      {profiles.state === 'error' && <ErrorNotice>{profiles.message}</ErrorNotice>}
      {profiles.state === 'done' && (
        <ProfileList
          profiles={list}
          {...(chosen ? { chosen: chosen.name } : {})}
          onChoose={(name) => done('', { kind: 'show', name })}
        />
      )}
      <ChosenView {...props} />
    </Panel>
  );
}
