/** `npm run generate -w packages/web-console`: writes src/gen/api-server.ts from the API server's /openapi.json. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { API_TYPES_FILE, apiServerTypes } from './api-types.js';

await mkdir(dirname(API_TYPES_FILE), { recursive: true });
await writeFile(API_TYPES_FILE, await apiServerTypes());
console.log(`wrote ${relative(process.cwd(), API_TYPES_FILE)}`);
