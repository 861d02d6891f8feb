/** The bench's one percentile: the nearest-rank value of `values` at `p` (0–100), NaN for none. */
export function percentile (values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN
}
