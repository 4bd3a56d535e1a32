/**
 * The synthetic web's clock: virtual time runs at `speed` × real time from `start`, and tests
 * move it on with `advance`. Articles appear in feeds as this clock passes their publish time.
 */
export class SyntheticClock {
  private readonly realStart = Date.now();
  private offset = 0;

  constructor(readonly start: number = Date.now(), readonly speed: number = 1) {}

  now(): number {
    return this.start + (Date.now() - this.realStart) * this.speed + this.offset;
  }

  advance(millis: number): void {
    this.offset += millis;
  }
}
