import type { Domain } from "../../operations/domain.js";
import { listSecrets } from "./query/list-secrets.js";
import { deleteSecrets } from "./submit/delete-secrets.js";
import { exportSecrets } from "./submit/export-secrets.js";
import { importSecrets } from "./submit/import-secrets.js";
import { initImportSecrets } from "./submit/init-import-secrets.js";

export const secretsDomain: Domain = {
  name: "secrets",
  activities: [initImportSecrets, importSecrets, exportSecrets, deleteSecrets],
  queries: [listSecrets],
};
