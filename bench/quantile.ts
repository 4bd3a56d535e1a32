/** The `q` quantile of `values` (the element at ⌊q·n⌋ once sorted; NaN when there are none): the benchmarks' one definition. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
