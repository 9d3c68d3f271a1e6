import { lazy, Suspense } from 'react';
import type { ReactNode } from 'react';
import { Loading } from '@gsp/ui';

/**
 * The feature pages other than the list, each loaded when first opened (the server page brings
 * the terminal, which the list does not need): its own chunk, named after the file.
 */
export const ServerPage = lazy(async () => ({ default: (await import('../features/server/server-page')).ServerPage }));
export const FleetsPage = lazy(async () => ({ default: (await import('../features/fleets/fleets-page')).FleetsPage }));
export const ProfilesPage = lazy(async () => ({
  default: (await import('../features/profiles/profiles-page')).ProfilesPage,
}));
export const ApiKeysPage = lazy(async () => ({
  default: (await import('../features/apikeys/apikeys-page')).ApiKeysPage,
}));

/** A lazily loaded page, with a loading line while its code arrives. */
export function Lazy({ title, children }: { title: string; children: ReactNode }) {
  return <Suspense fallback={<Loading what={`the ${title.toLowerCase()} view`} />}>{children}</Suspense>;
}
