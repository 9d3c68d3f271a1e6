import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import type { ServedDocument } from './openapi-doc.js';

/** Where a generated file comes from and how to make it again: its header says both. */
export interface TypesSource {
  /** The service whose `/openapi.json` it is generated from: `the API server`. */
  service: string;
  /** The command that writes the file again: `npm run generate -w packages/web-console`. */
  command: string;
}

/**
 * A browser app's wire types, from its service's served `/openapi.json`: openapi-typescript's
 * `paths` and `components` (types only, nothing that runs), after a header saying where they come
 * from and how to make them again. The same document gives the same text, byte for byte, so a test
 * can compare it with the committed file.
 */
export async function clientTypes(document: ServedDocument, source: TypesSource): Promise<string> {
  const nodes = await openapiTS(document as unknown as OpenAPI3, { silent: true });
  const header = [
    '/**',
    ` * Generated from ${source.service}'s /openapi.json by openapi-typescript: never edit it by hand.`,
    ` * After changing a route's schema, write it again with \`${source.command}\`.`,
    ' */',
  ].join('\n');
  return `${header}\n\n${astToString(nodes)}`;
}
