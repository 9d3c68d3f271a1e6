import { open, readFile, rename } from 'node:fs/promises';

/**
 * Replaces `path` with `text` so that a reader of the path, after a crash at any moment, sees the
 * old content or the new one, never a part: written to a temporary file, synced, then renamed.
 */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, 'w');
  try {
    await file.writeFile(text);
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
}

/** A reader's acknowledged sequence from its position file, undefined if it has none yet. */
export async function readPosition(path: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as { seq?: unknown };
  if (!Number.isSafeInteger(parsed.seq)) throw new Error(`audit spool: ${path} holds no position`);
  return parsed.seq as number;
}
