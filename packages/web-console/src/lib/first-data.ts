/** Performance mark the bench reads: the first answer from the API server is on screen. */
export const FIRST_DATA_MARK = 'gsp:first-data';

export function markFirstData(): void {
  if (performance.getEntriesByName(FIRST_DATA_MARK).length === 0) performance.mark(FIRST_DATA_MARK);
}
