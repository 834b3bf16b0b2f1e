import type { Database } from "../store/database.js";
import { insertAuditEvent } from "./record.js";

/**
 * Records in the log itself when recording starts or stops (STRONGROOM_AUDIT): a server started with the log off
 * writes one last entry saying so, and the next one started with it on writes that it resumed, so a stretch
 * without entries is never silent. The first start of a store writes the log's first entry this way.
 */
export async function noteRecordingSetting(db: Database, recording: boolean, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const [state] = await tx.query<{ recording: boolean | null }>("SELECT recording FROM audit_log_state WHERE id FOR UPDATE");
    if (state?.recording === recording) return;
    await insertAuditEvent(tx, {
      organizationId: null,
      time: now,
      type: "audit.recording",
      details: { recording: recording ? "on" : "off" },
    });
    await tx.query("UPDATE audit_log_state SET recording = $1 WHERE id", [recording]);
  });
}
