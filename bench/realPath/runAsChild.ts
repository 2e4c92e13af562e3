/**
 * The entry of a measured run in its own process: reads its options (JSON) from the command line,
 * prints the result as one JSON line and exits 0, or prints the error and exits 1.
 */
export function runAsChild<O, R>(name: string, measure: (options: O) => Promise<R>): void {
  measure(JSON.parse(process.argv[2]!) as O).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
