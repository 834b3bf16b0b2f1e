import { useState, type FormEvent } from "react";
import { createPasskey, generateApiKeyPair } from "../api/credentials.js";
import { listUsers, type ApiKey, type Authenticator } from "../api/identity.js";
import { query, submit, toDate } from "../api/requests.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { DeleteButton, ErrorNote, Loading, Section } from "../components/common.js";
import { Options } from "../components/choices.js";
import { DataTable } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

const CURVES = [
  { value: "API_KEY_CURVE_P256", label: "P-256" },
  { value: "API_KEY_CURVE_SECP256K1", label: "secp256k1" },
  { value: "API_KEY_CURVE_ED25519", label: "Ed25519" },
];

/**
 * API keys and passkeys of the signed-in user, or of any user of the organization being viewed. A new API key
 * is generated here (its private key shown once) or pasted; a new passkey is created in this browser.
 */
export function Credentials() {
  const { connection, organizationId } = useSession();
  const users = useLoader(() => listUsers(connection.client, organizationId), [organizationId]);
  const own = organizationId === connection.organizationId;
  const [chosen, setChosen] = useState(own ? connection.userId : "");
  const userId = chosen || users.data?.[0]?.userId || "";
  const user = users.data?.find((u) => u.userId === userId);
  const me = users.data?.find((u) => u.userId === connection.userId);

  return (
    <>
      <p className="signed-in">
        Signed in as <strong>{me?.userName ?? connection.userId}</strong> with{" "}
        {connection.method === "passkey" ? "a passkey" : "an API key"}.
      </p>
      <Loading when={users.loading && !users.data} />
      <ErrorNote error={users.error} />
      <label className="user-choice">
        Credentials of
        <select value={userId} onChange={(e) => setChosen(e.target.value)}>
          {users.data?.map((u) => (
            <option key={u.userId} value={u.userId}>
              {u.userName}
              {u.userId === connection.userId ? " (you)" : ""}
            </option>
          ))}
        </select>
      </label>
      {user && <UserCredentials key={user.userId} userId={user.userId} userName={user.userName} />}
    </>
  );
}

function UserCredentials({ userId, userName }: { userId: string; userName: string }) {
  const { connection, organizationId } = useSession();
  const apiKeys = useLoader(
    () => query<{ apiKeys: ApiKey[] }>(connection.client, "get_api_keys", { organizationId, userId }).then((r) => r.apiKeys),
    [organizationId, userId],
  );
  const authenticators = useLoader(
    () =>
      query<{ authenticators: Authenticator[] }>(connection.client, "get_authenticators", { organizationId, userId }).then(
        (r) => r.authenticators,
      ),
    [organizationId, userId],
  );
  const action = useActivity();

  const deleteApiKey = (key: ApiKey) =>
    void action.run(
      () =>
        submit(connection.client, "delete_api_keys", organizationId, {
          userId,
          apiKeyIds: [key.apiKeyId],
        }),
      apiKeys.reload,
    );
  const deleteAuthenticator = (authenticator: Authenticator) =>
    void action.run(
      () =>
        submit(connection.client, "delete_authenticators", organizationId, {
          userId,
          authenticatorIds: [authenticator.authenticatorId],
        }),
      authenticators.reload,
    );

  return (
    <>
      <Section title={`API keys of ${userName}`}>
        <Loading when={apiKeys.loading && !apiKeys.data} />
        <ErrorNote error={apiKeys.error} />
        {apiKeys.data?.length === 0 && <p className="muted">No API keys.</p>}
        {apiKeys.data && apiKeys.data.length > 0 && (
          <DataTable
            compact
            label="API keys"
            rows={apiKeys.data}
            rowKey={(key) => key.apiKeyId}
            columns={[
              { header: "Name", rowHeader: true, cell: (key) => key.apiKeyName },
              { header: "Public key", cell: (key) => <Abbreviated value={key.credential.publicKey} /> },
              { header: "Type", cell: (key) => describeCredential(key.credential.type) },
              { header: "Created", cell: (key) => toDate(key.createdAt).toLocaleDateString() },
              { header: "Expires after", cell: (key) => (key.expirationSeconds ? `${key.expirationSeconds} s` : "never") },
            ]}
            actions={(key) => <DeleteButton disabled={action.busy} onClick={() => deleteApiKey(key)} what={`API key ${key.apiKeyName}`} />}
          />
        )}
        <NewApiKey userId={userId} onCreated={apiKeys.reload} />
      </Section>
      <Section title={`Passkeys of ${userName}`}>
        <Loading when={authenticators.loading && !authenticators.data} />
        <ErrorNote error={authenticators.error} />
        {authenticators.data?.length === 0 && <p className="muted">No passkeys.</p>}
        {authenticators.data && authenticators.data.length > 0 && (
          <DataTable
            compact
            label="Passkeys"
            rows={authenticators.data}
            rowKey={(authenticator) => authenticator.authenticatorId}
            columns={[
              { header: "Name", rowHeader: true, cell: (authenticator) => authenticator.authenticatorName },
              { header: "Credential ID", cell: (authenticator) => <Abbreviated value={authenticator.credentialId} /> },
              {
                header: "Transports",
                cell: (authenticator) =>
                  authenticator.transports.map((t) => t.replace(/^AUTHENTICATOR_TRANSPORT_/, "").toLowerCase()).join(", "),
              },
              { header: "Created", cell: (authenticator) => toDate(authenticator.createdAt).toLocaleDateString() },
            ]}
            actions={(authenticator) => (
              <DeleteButton
                disabled={action.busy}
                onClick={() => deleteAuthenticator(authenticator)}
                what={`passkey ${authenticator.authenticatorName}`}
              />
            )}
          />
        )}
        <NewPasskey
          userId={userId}
          userName={userName}
          existing={(authenticators.data ?? []).map((a) => a.credentialId)}
          onCreated={authenticators.reload}
        />
      </Section>
      <ActivityOutcome activity={action.activity} error={action.error} done="Deleted." />
    </>
  );
}

/** CREDENTIAL_TYPE_API_KEY_P256 → "P-256", CREDENTIAL_TYPE_LOGIN → "login session". */
function describeCredential(type: string): string {
  const curve = CURVES.find((c) => type.endsWith(c.value.replace(/^API_KEY_CURVE_/, "")));
  if (type.startsWith("CREDENTIAL_TYPE_API_KEY_") && curve) return curve.label;
  return type
    .replace(/^CREDENTIAL_TYPE_/, "")
    .toLowerCase()
    .replace(/_/g, " ");
}

/** A long key or ID, its ends shown and the whole of it in a tooltip and to screen readers. */
function Abbreviated({ value }: { value: string }) {
  if (value.length <= 20) return <code>{value}</code>;
  return (
    <code className="abbreviated" title={value}>
      <span aria-hidden="true">
        {value.slice(0, 10)}…{value.slice(-6)}
      </span>
      <span className="visually-hidden">{value}</span>
    </code>
  );
}

function NewApiKey({ userId, onCreated }: { userId: string; onCreated: () => void }) {
  const { connection, organizationId } = useSession();
  const [apiKeyName, setApiKeyName] = useState("");
  const [source, setSource] = useState<"generate" | "paste">("generate");
  const [pastedKey, setPastedKey] = useState("");
  const [curveType, setCurveType] = useState(CURVES[0]!.value);
  const [expirationSeconds, setExpirationSeconds] = useState("");
  const [revealed, setRevealed] = useState<{ publicKey: string; privateKey: string }>();
  const action = useActivity();

  async function create(event: FormEvent) {
    event.preventDefault();
    setRevealed(undefined);
    const pair = source === "generate" ? generateApiKeyPair() : undefined;
    const activity = await action.run(
      () =>
        submit(connection.client, "create_api_keys", organizationId, {
          userId,
          apiKeys: [
            {
              apiKeyName: apiKeyName.trim(),
              publicKey: pair ? pair.publicKey : pastedKey.trim(),
              curveType: pair ? "API_KEY_CURVE_P256" : curveType,
              ...(expirationSeconds ? { expirationSeconds } : {}),
            },
          ],
        }),
      () => {
        setApiKeyName("");
        setPastedKey("");
        onCreated();
      },
    );
    // Shown also when the key waits for approval: it is the only time the private key exists anywhere.
    if (pair && activity && !activity.failure) setRevealed(pair);
  }

  return (
    <form className="inline-form" onSubmit={(e) => void create(e)} aria-label="New API key">
      <h3>New API key</h3>
      <label>
        API key name
        <input value={apiKeyName} onChange={(e) => setApiKeyName(e.target.value)} required />
      </label>
      <fieldset className="choice">
        <legend>Key pair</legend>
        <label>
          <input type="radio" name="key-source" checked={source === "generate"} onChange={() => setSource("generate")} /> generate a P-256
          key pair in this browser
        </label>
        <label>
          <input type="radio" name="key-source" checked={source === "paste"} onChange={() => setSource("paste")} /> paste a public key
        </label>
      </fieldset>
      {source === "paste" && (
        <>
          <label>
            Public key (hex)
            <input value={pastedKey} onChange={(e) => setPastedKey(e.target.value)} required spellCheck={false} autoComplete="off" />
          </label>
          <label>
            Curve
            <select value={curveType} onChange={(e) => setCurveType(e.target.value)}>
              <Options options={CURVES} />
            </select>
          </label>
        </>
      )}
      <label>
        Expires after (seconds) <small>(optional)</small>
        <input inputMode="numeric" pattern="[0-9]*" value={expirationSeconds} onChange={(e) => setExpirationSeconds(e.target.value)} />
      </label>
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          Create API key
        </button>
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} done="API key created." />
      {revealed && (
        <div className="secret" role="region" aria-label="New API key pair">
          <p>
            <strong>Copy the private key now.</strong> It was made in this browser and is shown only this once: Strongroom never had it.
          </p>
          <label>
            Public key
            <input readOnly value={revealed.publicKey} onFocus={(e) => e.target.select()} spellCheck={false} />
          </label>
          <label>
            Private key
            <input readOnly value={revealed.privateKey} onFocus={(e) => e.target.select()} spellCheck={false} />
          </label>
          <button type="button" className="secondary" onClick={() => setRevealed(undefined)}>
            I have copied it
          </button>
        </div>
      )}
    </form>
  );
}

function NewPasskey({
  userId,
  userName,
  existing,
  onCreated,
}: {
  userId: string;
  userName: string;
  existing: string[];
  onCreated: () => void;
}) {
  const { connection, organizationId } = useSession();
  const [authenticatorName, setAuthenticatorName] = useState("");
  const action = useActivity();

  async function register(event: FormEvent) {
    event.preventDefault();
    await action.run(
      async () =>
        submit(connection.client, "create_authenticators", organizationId, {
          userId,
          authenticators: [await createPasskey({ userId, userName }, authenticatorName.trim(), existing)],
        }),
      () => {
        setAuthenticatorName("");
        onCreated();
      },
    );
  }

  return (
    <form className="inline-form" onSubmit={(e) => void register(e)} aria-label="New passkey">
      <h3>New passkey in this browser</h3>
      <p className="muted">
        The passkey is made for <code>{window.location.hostname}</code>, so it signs in to this console.
      </p>
      <label>
        Passkey name
        <input value={authenticatorName} onChange={(e) => setAuthenticatorName(e.target.value)} required />
      </label>
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Waiting for the passkey…" : "Register a passkey"}
        </button>
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} done="Passkey registered." />
    </form>
  );
}
