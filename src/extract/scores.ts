/**
 * FOREST's informativeness measures (forest-paper.txt §3.3; thesis ch. 2 §6.2), for an element
 * with x signifier occurrences and y other terms (N = x + y), in a page with X and Y.
 */

/**
 * Jeffreys' statistical density, formula (2): the lower end of the ≈70 % interval around the
 * add-half estimate of the signifier proportion, J = max(0, (x + ½ − √((x + ½)(y + ½)/N)) / (N + 1)).
 */
export function jeffreysDensity(x: number, y: number): number {
  const n = x + y;
  if (n === 0) return 0;
  return Math.max(0, (x + 0.5 - Math.sqrt(((x + 0.5) * (y + 0.5)) / n)) / (n + 1));
}

/**
 * Unexpectedness, formula (3): U = (x + y)·log(X + Y) − x·log X − y·log Y — the generation
 * complexity of drawing x + y terms from the page, less the complexity of describing which x
 * were signifiers. Natural logarithms: the paper calls the unit bits, but its worked examples
 * (≈23 and ≈6 for 10/26 and 3/1 in a 20/100 page) are in nats; rankings do not depend on the base.
 */
export function unexpectedness(x: number, y: number, X: number, Y: number): number {
  const log = (value: number) => (value > 0 ? Math.log(value) : 0);
  return (x + y) * log(X + Y) - x * log(X) - y * log(Y);
}

/** Informativeness, formula (4): I = J × U. */
export function informativeness(x: number, y: number, X: number, Y: number): number {
  return jeffreysDensity(x, y) * unexpectedness(x, y, X, Y);
}

/** A structural pattern's relevance, formula (5): R = Σ over the p pages where it occurs of I × p × level. */
export function relevance(perPage: readonly number[], level: number): number {
  const p = perPage.length;
  return perPage.reduce((sum, value) => sum + value * p * level, 0);
}
