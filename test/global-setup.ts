// The export and import frames' scripts are bundled, and the console is built with Vite: both once, before the tests.
// @ts-expect-error -- a plain ES module script without type declarations
import { buildConsole } from "../scripts/build-console.mjs";
// @ts-expect-error -- a plain ES module script without type declarations
import { buildFrames } from "../scripts/build-frames.mjs";

export default async function setup(): Promise<void> {
  await (buildFrames as () => Promise<void>)();
  await (buildConsole as () => Promise<void>)();
}
