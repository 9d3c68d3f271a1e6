/**
 * The page's wire types are the API server's document: a route whose schema changed fails here until they are
 * generated again.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { API_TYPES_FILE, apiServerTypes, GENERATE_COMMAND } from '../tools/api-types.js';

t.test("src/gen/api-server.ts is what the API server's served /openapi.json generates", async (t) => {
  const committed = await readFile(API_TYPES_FILE, 'utf8');
  t.equal(
    committed,
    await apiServerTypes(),
    `the API server's /openapi.json no longer gives src/gen/api-server.ts: run \`${GENERATE_COMMAND}\` and commit it`,
  );
});
