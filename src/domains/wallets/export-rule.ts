import { failedPrecondition } from "../../errors.js";

/**
 * Key material that never left Strongroom would be lost for good by deleting it, so deletion needs it
 * to have been exported (or imported: the caller brought it) unless deleteWithoutExport says otherwise.
 */
export function assertSafeToDelete(
  items: { id: string; exported: boolean; imported: boolean }[],
  what: string,
  deleteWithoutExport: boolean | undefined,
): void {
  if (deleteWithoutExport) return;
  const unexported = items.filter((item) => !item.exported && !item.imported).map((item) => item.id);
  if (unexported.length > 0) {
    throw failedPrecondition(
      `${what} ${unexported.join(", ")} ${unexported.length === 1 ? "has" : "have"} never been exported; export ${unexported.length === 1 ? "it" : "them"} first or set deleteWithoutExport: true to destroy the key material`,
      "REQUEST_INVALID",
    );
  }
}
