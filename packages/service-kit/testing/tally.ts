/** Tallies the statuses a fuzz run got, for its closing comment (`${tally}`: "200: 12, 404: 3"). */
export class Tally {
  readonly statuses = new Map<number, number>();
  sent = 0;

  count(status: number): void {
    this.sent += 1;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  toString(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
  }
}
