import type { Migration } from "./migration.js";

export const userOwnedRows: Migration = {
  version: 40,
  name: "each user's API keys, passkeys, OAuth providers, MFA policies and tags kept on the user's row",
  sql: `
-- A user's record (what get_user and list_users answer, and what a vote records of its voter, read by every
-- activity's authentication) is the user's row with the rows they own in five other tables. Gathered at each read,
-- that was a subquery per table: at every activity, PostgreSQL set up a dozen plan nodes for them (a fifth of its
-- work per rename), and PGlite spent a third of its authentication statement on them. The owned rows are now kept
-- on the user's row, as the columns the record shows (nothing else of those tables: no proof or counter state),
-- rewritten by the triggers below in the same transaction as any change to them, so a reader never sees them stale.
-- Expired API keys stay in it; readers leave them out at the time of the read (src/records/user.ts).
ALTER TABLE users ADD COLUMN owned_rows jsonb NOT NULL DEFAULT '{}';

CREATE FUNCTION user_owned_rows(owner text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'api_keys', (SELECT jsonb_agg(jsonb_build_object(
        'id', k.id, 'name', k.name, 'public_key', k.public_key, 'credential_type', k.credential_type,
        'session_profile_id', k.session_profile_id, 'expiration_seconds', k.expiration_seconds,
        'expires_at', k.expires_at, 'created_at', k.created_at, 'updated_at', k.updated_at) ORDER BY k.seq)
      FROM api_keys k WHERE k.user_id = owner),
    'authenticators', (SELECT jsonb_agg(jsonb_build_object(
        'id', a.id, 'name', a.name, 'credential_id', a.credential_id, 'public_key', a.public_key, 'aaguid', a.aaguid,
        'attestation_type', a.attestation_type, 'transports', a.transports, 'model', a.model,
        'created_at', a.created_at, 'updated_at', a.updated_at) ORDER BY a.created_at, a.id)
      FROM authenticators a WHERE a.user_id = owner),
    'oauth_providers', (SELECT jsonb_agg(jsonb_build_object(
        'id', p.id, 'name', p.name, 'issuer', p.issuer, 'audience', p.audience, 'subject', p.subject,
        'created_at', p.created_at, 'updated_at', p.updated_at) ORDER BY p.created_at, p.id)
      FROM oauth_providers p WHERE p.user_id = owner),
    'mfa_policies', (SELECT jsonb_agg(jsonb_build_object(
        'id', m.id, 'name', m.name, 'condition', m.condition, 'required_methods', m.required_methods,
        'position', m.position, 'notes', m.notes, 'created_at', m.created_at, 'updated_at', m.updated_at)
        ORDER BY m.position, m.created_at, m.id)
      FROM mfa_policies m WHERE m.user_id = owner),
    'tags', (SELECT jsonb_agg(t.id ORDER BY t.created_at, t.id)
      FROM user_tag_assignments ta JOIN user_tags t ON t.id = ta.tag_id WHERE ta.user_id = owner))
$$;

-- Lock the user's row first, then read: under READ COMMITTED the UPDATE then takes its snapshot with the lock held,
-- so it sees the owned rows of every transaction that held the lock before. An UPDATE left to wait for the row
-- itself would recompute the value from the snapshot it took before waiting, and drop what that transaction added
-- (an MFA policy, say). NO KEY UPDATE, like the UPDATE's own lock: inserts that reference the user are not held up.
CREATE FUNCTION rewrite_user_owned_rows(owner text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM users WHERE id = owner FOR NO KEY UPDATE;
  UPDATE users SET owned_rows = user_owned_rows(id) WHERE id = owner;
END
$$;

-- A row's owner before and after the change: both records are rewritten (a user deleted meanwhile has none).
CREATE FUNCTION refresh_user_owned_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM rewrite_user_owned_rows(OLD.user_id);
  END IF;
  IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND NEW.user_id IS DISTINCT FROM OLD.user_id) THEN
    PERFORM rewrite_user_owned_rows(NEW.user_id);
  END IF;
  RETURN NULL;
END
$$;

-- An update fires only when it sets a column the record holds: a passkey's signature counter and the proofs of
-- first use change at sign-ins and leave the user's row alone.
CREATE TRIGGER api_keys_owned_rows
  AFTER INSERT OR DELETE OR UPDATE OF user_id, name, public_key, credential_type, session_profile_id,
    expiration_seconds, expires_at, created_at, updated_at ON api_keys
  FOR EACH ROW EXECUTE FUNCTION refresh_user_owned_rows();
CREATE TRIGGER authenticators_owned_rows
  AFTER INSERT OR DELETE OR UPDATE OF user_id, name, credential_id, public_key, aaguid, attestation_type, transports,
    model, created_at, updated_at ON authenticators
  FOR EACH ROW EXECUTE FUNCTION refresh_user_owned_rows();
CREATE TRIGGER oauth_providers_owned_rows
  AFTER INSERT OR DELETE OR UPDATE OF user_id, name, issuer, audience, subject, created_at, updated_at ON oauth_providers
  FOR EACH ROW EXECUTE FUNCTION refresh_user_owned_rows();
CREATE TRIGGER mfa_policies_owned_rows
  AFTER INSERT OR DELETE OR UPDATE OF user_id, name, condition, required_methods, position, notes, created_at, updated_at
    ON mfa_policies
  FOR EACH ROW EXECUTE FUNCTION refresh_user_owned_rows();
CREATE TRIGGER user_tag_assignments_owned_rows
  AFTER INSERT OR DELETE OR UPDATE ON user_tag_assignments
  FOR EACH ROW EXECUTE FUNCTION refresh_user_owned_rows();

UPDATE users SET owned_rows = user_owned_rows(id);
`,
};
