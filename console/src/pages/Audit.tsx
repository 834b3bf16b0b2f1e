import { useState } from "react";
import type { TurnkeyClient } from "@turnkey/http";
import { base64 } from "@scure/base";
import { openCheckpoint, parseVerifierKey, type Checkpoint } from "../../../src/crypto/signed-note.js";
import { verifyTlogProof } from "../../../src/crypto/tlog-proof.js";
import { messageOf, query } from "../api/requests.js";
import { Copyable } from "../components/CopyButton.js";
import { ErrorNote, Loading, RefreshButton, Section } from "../components/common.js";
import { DataTable } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

/** One entry as list_audit_entries answers it: its index in the log and its exact bytes (canonical JSON). */
interface ListedEntry {
  index: number;
  entry: string;
}

interface Entry extends ListedEntry {
  fields: Record<string, unknown> & { type: string; time: string };
}

/** The outcome of checking one entry's inclusion proof here, in the browser. */
type Verification = { ok: true; treeSize: number } | { ok: false; problem: string };

const PAGE_SIZE = 100;

/** One of Strongroom's own queries (src/domains/audit/): POST /strongroom/v1/query/<operation>, stamped like any query. */
function auditQuery<T>(client: TurnkeyClient, operation: string, body: Record<string, unknown>): Promise<T> {
  return client.request<Record<string, unknown>, T>(`/strongroom/v1/query/${operation}`, body);
}

/** Who an entry names: the requester or the voter (by name where the organization has them), or nobody authenticated. */
function actorOf(fields: Entry["fields"], names: Map<string, string> | undefined): string {
  const actor = (fields.requester ?? fields.voter) as { userId?: string } | undefined;
  if (actor?.userId) return names?.get(actor.userId) ?? actor.userId;
  return fields.type.endsWith(".refused") || fields.type === "refusals.counted" ? "not authenticated" : "";
}

/** What happened, in a few words: the activity's type or the refused operation, and how it ended. */
function summaryOf(fields: Entry["fields"]): string {
  const what = (fields.activityType ?? fields.operation ?? "") as string;
  if (fields.type === "refusals.counted") return `${String(fields.count)} more refusals, counted`;
  const outcome = (fields.status ?? (fields.httpStatus !== undefined ? `HTTP ${String(fields.httpStatus)}` : "")) as string;
  return [what.replace(/^ACTIVITY_TYPE_/, ""), outcome.replace(/^ACTIVITY_STATUS_/, "")].filter(Boolean).join(" · ");
}

/**
 * The organization's audit log (docs/operations.md, Audit log): its latest signed checkpoint, checked here against
 * the log's key — or a key kept elsewhere, pasted in — and its entries, each of which can be proven included in
 * that checkpoint, the proof checked here too (the server is not trusted to say so).
 */
export function Audit() {
  const { connection, organizationId } = useSession();
  const served = useLoader(async () => {
    const [key, latest] = await Promise.all([
      auditQuery<{ verifierKey: string }>(connection.client, "get_audit_log_key", { organizationId }),
      auditQuery<{ checkpoint: string; signedAt: string }>(connection.client, "get_audit_checkpoint", { organizationId }).catch(
        (error: unknown) => ({ problem: messageOf(error) }),
      ),
    ]);
    return { verifierKey: key.verifierKey, latest };
  }, [organizationId]);
  const [keptKey, setKeptKey] = useState("");
  const verifierKey = keptKey.trim() || served.data?.verifierKey;

  let checkpoint: { checked?: Checkpoint; problem?: string } = {};
  if (served.data && verifierKey) {
    const latest = served.data.latest;
    if ("problem" in latest) checkpoint = { problem: latest.problem };
    else {
      try {
        checkpoint = { checked: openCheckpoint(latest.checkpoint, parseVerifierKey(verifierKey)) };
      } catch (error) {
        checkpoint = { problem: messageOf(error) };
      }
    }
  }

  return (
    <>
      <Section title="Latest checkpoint" actions={<RefreshButton onClick={served.reload} />}>
        <Loading when={served.loading} />
        <ErrorNote error={served.error} />
        {served.data && (
          <dl className="facts">
            <dt>Log key</dt>
            <dd>
              <Copyable text={served.data.verifierKey} label="log key" />
            </dd>
            <dt>
              <label htmlFor="kept-key">Verify with a key kept elsewhere</label>
            </dt>
            <dd>
              <input
                id="kept-key"
                value={keptKey}
                onChange={(e) => setKeptKey(e.target.value)}
                placeholder="the log key as you kept it (default: the key above)"
                spellCheck={false}
              />
            </dd>
            {checkpoint.checked && (
              <>
                <dt>Tree size</dt>
                <dd>{checkpoint.checked.size}</dd>
                <dt>Root hash</dt>
                <dd>
                  <code>{base64.encode(checkpoint.checked.root)}</code>
                </dd>
                {!("problem" in served.data.latest) && (
                  <>
                    <dt>Signed</dt>
                    <dd>{new Date(served.data.latest.signedAt).toLocaleString()}</dd>
                  </>
                )}
              </>
            )}
            <dt>Signature</dt>
            <dd role="status" className={checkpoint.checked ? "verified" : "error"}>
              {checkpoint.checked
                ? `verified in this browser with ${keptKey.trim() ? "the key kept elsewhere" : "the log key"}`
                : checkpoint.problem}
            </dd>
          </dl>
        )}
      </Section>
      {verifierKey && <Entries verifierKey={verifierKey} />}
    </>
  );
}

function Entries({ verifierKey }: { verifierKey: string }) {
  const { connection, organizationId } = useSession();
  const [pages, setPages] = useState<{ entries: Entry[]; nextIndex?: number }[]>([]);
  const [verifications, setVerifications] = useState<Record<number, Verification>>({});
  const [moreError, setMoreError] = useState<string>();
  const userNames = useLoader(
    () =>
      query<{ users: { userId: string; userName: string }[] }>(connection.client, "list_users", { organizationId }).then(
        (r) => new Map(r.users.map((u) => [u.userId, u.userName])),
      ),
    [organizationId],
  );

  const load = async (startIndex: number) => {
    const answer = await auditQuery<{ entries: ListedEntry[]; nextIndex?: number }>(connection.client, "list_audit_entries", {
      organizationId,
      startIndex,
      limit: PAGE_SIZE,
    });
    const entries = answer.entries.map((listed) => ({ ...listed, fields: JSON.parse(listed.entry) as Entry["fields"] }));
    return { entries, ...(answer.nextIndex !== undefined ? { nextIndex: answer.nextIndex } : {}) };
  };
  const first = useLoader(() => {
    setPages([]);
    setVerifications({});
    return load(0);
  }, [organizationId]);
  const loaded = first.data ? [first.data, ...pages] : [];
  const entries = loaded.flatMap((page) => page.entries);
  const nextIndex = loaded[loaded.length - 1]?.nextIndex;

  async function loadMore(startIndex: number) {
    setMoreError(undefined);
    try {
      const page = await load(startIndex);
      setPages((previous) => [...previous, page]);
    } catch (error) {
      setMoreError(messageOf(error));
    }
  }

  async function verify(entry: Entry) {
    let outcome: Verification;
    try {
      const { proof } = await auditQuery<{ proof: string }>(connection.client, "get_audit_inclusion_proof", {
        organizationId,
        index: entry.index,
      });
      const checked = verifyTlogProof(proof, new TextEncoder().encode(entry.entry), parseVerifierKey(verifierKey));
      outcome = { ok: true, treeSize: checked.size };
    } catch (error) {
      outcome = { ok: false, problem: messageOf(error) };
    }
    setVerifications((previous) => ({ ...previous, [entry.index]: outcome }));
  }

  async function verifyAll() {
    for (const entry of entries) await verify(entry);
  }

  return (
    <Section
      title="Entries"
      actions={
        <>
          <button className="secondary" disabled={entries.length === 0} onClick={() => void verifyAll()}>
            Verify all shown
          </button>
          <RefreshButton onClick={first.reload} />
        </>
      }
    >
      <Loading when={first.loading} />
      <ErrorNote error={first.error} />
      <DataTable
        label="Audit log entries"
        compact
        rows={entries}
        rowKey={(entry) => String(entry.index)}
        rowLabel={(entry) => `Entry ${entry.index}`}
        columns={[
          { header: "Index", rowHeader: true, cell: (entry) => entry.index },
          { header: "When", cell: (entry) => new Date(entry.fields.time).toLocaleString() },
          {
            header: "What",
            cell: (entry) => (
              <>
                <code>{entry.fields.type}</code> {summaryOf(entry.fields)}
              </>
            ),
          },
          { header: "By", cell: (entry) => actorOf(entry.fields, userNames.data) },
          {
            header: "Proof",
            cellClassName: (entry) => (verifications[entry.index] ? (verifications[entry.index]!.ok ? "verified" : "error") : ""),
            cell: (entry) => {
              const verification = verifications[entry.index];
              if (verification)
                return verification.ok ? `included in the checkpoint of size ${verification.treeSize}` : verification.problem;
              return (
                <button className="secondary" onClick={() => void verify(entry)}>
                  Verify<span className="visually-hidden"> entry {entry.index}</span>
                </button>
              );
            },
          },
        ]}
      />
      {entries.length === 0 && !first.loading && !first.error && <p className="muted">No entry yet.</p>}
      <ErrorNote error={moreError} />
      {nextIndex !== undefined && (
        <button className="secondary" onClick={() => void loadMore(nextIndex)}>
          Load more
        </button>
      )}
    </Section>
  );
}
