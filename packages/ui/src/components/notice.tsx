import type { ReactNode } from 'react';

/** An error sentence, announced by screen readers when it appears. */
export function ErrorNotice({ children }: { children: ReactNode }) {
  return (
    <p className="notice notice-error" role="alert">
      {children}
    </p>
  );
}

/** Shown while something loads; announced politely. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="notice" role="status">
      Loading {what}…
    </p>
  );
}
