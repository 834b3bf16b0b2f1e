// The export and import frames' scripts are bundled, and the console is built with Vite: both once, before the tests.
// STRONGROOM_TEST_PREBUILT=1 (.ci/run, after `npm ci` built them) keeps the build there: two suites running side by side
// would otherwise empty dist/console/ under each other's browser tests.
// @ts-expect-error -- a plain ES module script without type declarations
import { buildConsole } from "../scripts/build-console.mjs";
// @ts-expect-error -- a plain ES module script without type declarations
import { buildFrames } from "../scripts/build-frames.mjs";

export default async function setup(): Promise<void> {
  if (process.env.STRONGROOM_TEST_PREBUILT === "1") return;
  await (buildFrames as () => Promise<void>)();
  await (buildConsole as () => Promise<void>)();
}
