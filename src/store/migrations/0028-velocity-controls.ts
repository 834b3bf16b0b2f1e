import type { Migration } from "./migration.js";

export const velocityControls: Migration = {
  version: 28,
  name: "velocity controls",
  sql: `
-- A velocity control: a named aggregate over executed activities that policies read as controls.<identifier>.
CREATE TABLE velocity_controls (
  id text PRIMARY KEY,
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  identifier text NOT NULL,
  name text NOT NULL,
  data_source jsonb NOT NULL,
  aggregation jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX velocity_controls_identifier ON velocity_controls(organization_id, identifier);
CREATE INDEX velocity_controls_organization ON velocity_controls(organization_id, seq);

-- One row per group a control partitions by (the organization, a user, a wallet): the row a decision locks, so
-- two activities cannot both pass a cap only one fits. An infinite window keeps its running total here.
CREATE TABLE velocity_control_buckets (
  control_id text NOT NULL REFERENCES velocity_controls(id) ON DELETE CASCADE,
  bucket text NOT NULL,
  total numeric NOT NULL DEFAULT 0,
  PRIMARY KEY (control_id, bucket)
);

-- What each executed activity added to a rolling window's bucket, in units of 10^-18; rows older than the
-- window are deleted when the bucket is next written.
CREATE TABLE velocity_control_events (
  control_id text NOT NULL,
  bucket text NOT NULL,
  activity_id text NOT NULL,
  amount numeric NOT NULL,
  occurred_at timestamptz NOT NULL,
  FOREIGN KEY (control_id, bucket) REFERENCES velocity_control_buckets(control_id, bucket) ON DELETE CASCADE
);
CREATE INDEX velocity_control_events_window ON velocity_control_events(control_id, bucket, occurred_at);
`,
};
