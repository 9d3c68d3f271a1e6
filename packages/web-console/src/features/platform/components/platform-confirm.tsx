import type { Impact } from '../api';

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The blast radius in a sentence, while it is counted, or why it could not be. */
export function BlastRadius({ id, impact, error }: { id: string; impact?: Impact; error?: string }) {
  return (
    <p className="blast" id={id}>
      {impact !== undefined
        ? `${plural(impact.clustersAffected, 'cluster loses', 'clusters lose')} kubectl access; ` +
          `${plural(impact.tunnelsOpen, 'tunnel is', 'tunnels are')} open now.`
        : (error ?? 'Counting the clusters this reaches…')}
    </p>
  );
}

/** The typed confirmation: the platform id, named when the server names it. */
export function PlatformIdField({
  id,
  platformId,
  describedBy,
  value,
  onChange,
}: {
  id: string;
  platformId: string | undefined;
  describedBy: string;
  value: string;
  onChange: (typed: string) => void;
}) {
  return (
    <>
      <label htmlFor={id}>
        {platformId === undefined ? (
          "To confirm, type this platform's id (the API server's PLATFORM_ID)"
        ) : (
          <>
            To confirm, type the platform id <strong className="code">{platformId}</strong>
          </>
        )}
      </label>
      <input
        id={id}
        name="confirm"
        autoComplete="off"
        spellCheck={false}
        aria-describedby={describedBy}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </>
  );
}
