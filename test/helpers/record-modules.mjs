// `node --import ./test/helpers/record-modules.mjs …`: every ES module the process loads is appended, one URL a
// line, to the file named by RECORD_MODULES_FILE (CommonJS modules loaded by require are in require.cache instead).
import { register } from "node:module";
import process from "node:process";

register("./record-modules-hooks.mjs", import.meta.url, { data: { file: process.env.RECORD_MODULES_FILE } });
