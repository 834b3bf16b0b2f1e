import { useState } from "react";

/**
 * The confirmation under a wallet's or private key's "Delete…": one that was never exported (nor imported) is
 * deleted only when the user ticks that its key material goes for good (the API's deleteWithoutExport).
 */
export function DeleteKeyMaterial({
  record,
  warning,
  neverExported,
  busy,
  onDelete,
}: {
  /** "wallet" or "private key". */
  record: string;
  /** The checkbox's words: what deleting without export destroys. */
  warning: string;
  neverExported: boolean;
  busy: boolean;
  onDelete: (withoutExport: boolean) => void;
}) {
  const [withoutExport, setWithoutExport] = useState(false);
  return (
    <div className="confirm">
      {neverExported && (
        <label className="inline">
          <input type="checkbox" checked={withoutExport} onChange={(e) => setWithoutExport(e.target.checked)} />
          {warning}
        </label>
      )}
      <button className="danger" disabled={busy || (neverExported && !withoutExport)} onClick={() => onDelete(withoutExport)}>
        Delete {record}
      </button>
    </div>
  );
}
