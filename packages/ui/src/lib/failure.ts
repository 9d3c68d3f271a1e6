import { ApiError } from './api';

/** A failed call as a sentence for the person who asked. */
export function failure(err: unknown): string {
  return err instanceof ApiError ? err.message : 'Something went wrong; try again.';
}
