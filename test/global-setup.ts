// The export and import frames' scripts are bundled, not compiled per module: build them once before the tests.
// @ts-expect-error -- a plain ES module script without type declarations
import { buildFrames } from "../scripts/build-frames.mjs";

export default async function setup(): Promise<void> {
  await (buildFrames as () => Promise<void>)();
}
