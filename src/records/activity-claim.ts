/**
 * `activity_claims` (migrations 0014 and 0031): a body's fingerprint claimed by the request preparing its activity
 * (src/pipeline/steps/claim.ts). `holder` is the claiming process's session name (src/store/process-session.ts).
 */

/** Deletes this process's claim on the fingerprint given by `fingerprint` (a parameter's placeholder, as `$1`). */
export const DELETE_OWN_CLAIM = (fingerprint: string) =>
  `DELETE FROM activity_claims WHERE fingerprint = ${fingerprint} AND holder IS NOT DISTINCT FROM current_setting('application_name')`;
