/**
 * The panel's wire types are the control plane's document: a route whose schema changed fails here until they are
 * generated again.
 */
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { API_TYPES_FILE, controlPlaneTypes, GENERATE_COMMAND } from '../tools/api-types.js';

t.test("src/gen/control-plane.ts is what the control plane's served /openapi.json generates", async (t) => {
  const committed = await readFile(API_TYPES_FILE, 'utf8');
  t.equal(
    committed,
    await controlPlaneTypes(),
    "the control plane's /openapi.json no longer gives src/gen/control-plane.ts: " +
      `run \`${GENERATE_COMMAND}\` and commit it`,
  );
});
