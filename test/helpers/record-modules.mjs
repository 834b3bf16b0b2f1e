// `node --import ./test/helpers/record-modules.mjs …`: every module the process loads is appended, one a line, to the
// file named by RECORD_MODULES_FILE: ES modules as URLs (from the module hooks), CommonJS ones loaded by `require` as
// file URLs too (the hooks do not see them; Module._load does).
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import process from "node:process";
import { pathToFileURL } from "node:url";

const file = process.env.RECORD_MODULES_FILE;
register("./record-modules-hooks.mjs", import.meta.url, { data: { file } });

const load = Module._load;
Module._load = function (request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  if (!Module.isBuiltin(request)) appendFileSync(file, pathToFileURL(Module._resolveFilename(request, parent, isMain)).href + "\n");
  return loaded;
};
