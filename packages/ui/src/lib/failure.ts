import { ApiError } from './api';

/** A failed call as a sentence for the person who asked; `otherwise` when it is no `ApiError`. */
export function failure(err: unknown, otherwise = 'Something went wrong; try again.'): string {
  return err instanceof ApiError ? err.message : otherwise;
}
