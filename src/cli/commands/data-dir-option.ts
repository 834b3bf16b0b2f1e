import { Option } from "commander";

/** --data-dir, as `serve` takes it: the operator commands work on the same directory. */
export const dataDirOption = () =>
  new Option("--data-dir <dir>", "where the embedded store and key file live").env("STRONGROOM_DATA_DIR").default(".strongroom");

/** Prints a command's failure and exits 1. */
export function fail(error: unknown): never {
  process.stderr.write(`strongroom: ${(error as Error).message}\n`);
  process.exit(1);
}
