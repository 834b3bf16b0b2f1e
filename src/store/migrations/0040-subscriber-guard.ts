import type { Migration } from "./migration.js";

export const subscriberGuard: Migration = {
  version: 40,
  name: "a new activity's insert can refuse to commit when a webhook subscriber appeared",
  sql: `
-- A new activity whose organization had no ACTIVITY_UPDATES subscriber when its transaction began sends its insert
-- with the transaction's COMMIT (src/pipeline/steps/persist.ts). Should a subscriber exist by the time of the insert
-- (the activity created one, or another transaction did meanwhile), the insert calls this: the statement fails with
-- SQLSTATE SR001, the COMMIT behind it answers ROLLBACK, and the activity runs again, queuing its delivery.
CREATE FUNCTION strongroom_subscriber_appeared() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'a webhook subscriber to ACTIVITY_UPDATES appeared while the activity ran' USING ERRCODE = 'SR001';
END
$$;
`,
};
