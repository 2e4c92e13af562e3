/** The message counts a scale benchmark runs at: its command-line arguments, or 1k, 10k and 50k. */
export function sizesFromArgs(): number[] {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
  return sizes.length ? sizes : [1_000, 10_000, 50_000];
}
