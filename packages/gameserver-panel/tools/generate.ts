/**
 * `npm run generate -w packages/gameserver-panel`: writes src/gen/control-plane.ts from the control plane's
 * /openapi.json.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { API_TYPES_FILE, controlPlaneTypes } from './api-types.js';

await mkdir(dirname(API_TYPES_FILE), { recursive: true });
await writeFile(API_TYPES_FILE, await controlPlaneTypes());
console.log(`wrote ${relative(process.cwd(), API_TYPES_FILE)}`);
