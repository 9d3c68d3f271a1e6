import { lazy, Suspense } from 'react';
import type { ComponentType, LazyExoticComponent } from 'react';
import { Loading, Panel } from '@gsp/ui';
import type { PanelSession } from '../lib/session';

/** What every page gets; the server page gets its namespace and name too. */
export interface PageProps {
  session: PanelSession;
  namespace?: string;
  name?: string;
}

type PageModule = Record<string, unknown>;

/**
 * The feature pages other than the list, loaded when first opened (the server page brings the
 * terminal, which the list does not need). Found by file name, so a page that is not built yet
 * shows a placeholder instead of breaking the build.
 */
const loaders = import.meta.glob<PageModule>(['../features/*/*-page.tsx', '!../features/servers/**']);

function Placeholder({ title }: { title: string }) {
  return (
    <Panel title={title}>
      <p>This view is not built yet.</p>
    </Panel>
  );
}

const cache = new Map<string, LazyExoticComponent<ComponentType<PageProps>>>();

/** The page component `exportName` of `features/<feature>/<feature>-page.tsx`, if that file exists. */
function pageOf(feature: string, exportName: string, title: string): ComponentType<PageProps> | undefined {
  const file = `../features/${feature}/${feature}-page.tsx`;
  const load = loaders[file];
  if (load === undefined) return undefined;
  const known = cache.get(file);
  if (known !== undefined) return known;
  const page = lazy<ComponentType<PageProps>>(async () => {
    const mod = await load();
    const component = mod[exportName];
    if (typeof component !== 'function') return { default: () => <Placeholder title={title} /> };
    return { default: component as ComponentType<PageProps> };
  });
  cache.set(file, page);
  return page;
}

/** A lazily loaded feature page, with a loading line while its code arrives. */
export function FeaturePage({
  feature,
  exportName,
  title,
  ...props
}: PageProps & { feature: string; exportName: string; title: string }) {
  const Page = pageOf(feature, exportName, title);
  if (Page === undefined) return <Placeholder title={title} />;
  return (
    <Suspense fallback={<Loading what={`the ${title.toLowerCase()} view`} />}>
      <Page {...props} />
    </Suspense>
  );
}
