import { useId } from 'react';
import { Facts } from '@gsp/ui';
import type { ReactNode } from 'react';
import type { Compute, Profile } from './api';

function computeText(compute: Compute | undefined): string | undefined {
  if (compute === undefined) return undefined;
  const parts = [compute.cpu && `CPU ${compute.cpu}`, compute.memory && `memory ${compute.memory}`].filter(Boolean);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** The facts of a profile, in words: what a game server made from it gets. */
function factsOf(profile: Profile): [string, ReactNode][] {
  const actions = Object.keys(profile.actions ?? {});
  const env = Object.keys(profile.env ?? {});
  return [
    ['Description', profile.description ?? 'None'],
    ['Image', <span className="code">{profile.image}</span>],
    ['Ports', profile.ports.map((p) => `${p.name} ${p.containerPort}/${p.protocol ?? 'UDP'}`).join(', ')],
    ['Requests', computeText(profile.resources?.requests) ?? 'None'],
    ['Limits', computeText(profile.resources?.limits) ?? 'None'],
    ['Player capacity', profile.players === undefined ? 'Not tracked' : profile.players.initialCapacity],
    ['Storage', profile.storage === undefined ? 'None' : `${profile.storage.size} at ${profile.storage.mountPath}`],
    ['Environment', env.length === 0 ? 'None' : env.join(', ')],
    ['Actions', actions.length === 0 ? 'None' : actions.join(', ')],
    ['Restart command', profile.restartCommand?.join(' ') ?? 'None (restart is refused)'],
  ];
}

/**
 * One profile: its facts, and Edit and Delete, each disabled with the reason when the role may
 * not (`editWhy`, `deleteWhy`).
 */
export function ProfileDetail({
  profile,
  editWhy,
  deleteWhy,
  onEdit,
  onDelete,
}: {
  profile: Profile;
  editWhy: string | undefined;
  deleteWhy: string | undefined;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const ids = useId();
  return (
    <article className="profile-detail" aria-labelledby={`${ids}-title`}>
      <h3 id={`${ids}-title`}>Profile {profile.name}</h3>
      <Facts items={factsOf(profile)} />
      <div className="actions">
        <button
          type="button"
          className="button"
          disabled={editWhy !== undefined}
          aria-describedby={editWhy === undefined ? undefined : `${ids}-edit-why`}
          onClick={onEdit}
        >
          Edit profile {profile.name}
        </button>
        <button
          type="button"
          className="button button-danger"
          disabled={deleteWhy !== undefined}
          aria-describedby={deleteWhy === undefined ? undefined : `${ids}-delete-why`}
          onClick={onDelete}
        >
          Delete profile {profile.name}
        </button>
      </div>
      {editWhy !== undefined && (
        <p className="why" id={`${ids}-edit-why`}>
          {editWhy}
        </p>
      )}
      {deleteWhy !== undefined && (
        <p className="why" id={`${ids}-delete-why`}>
          {deleteWhy}
        </p>
      )}
    </article>
  );
}
