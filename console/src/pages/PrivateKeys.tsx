import { useState, type FormEvent } from "react";
import { query, submit, toDate, type ApiTimestamp } from "../api/requests.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { ADDRESS_FORMATS, CURVES, describeFormat, formatsForCurve, type Curve } from "../components/address-formats.js";
import { Checklist, Options } from "../components/choices.js";
import { DeleteKeyMaterial } from "../components/DeleteKeyMaterial.js";
import { CardList } from "../components/CardList.js";
import { RefreshButton, Section } from "../components/common.js";
import { Copyable } from "../components/CopyButton.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

interface PrivateKey {
  privateKeyId: string;
  privateKeyName: string;
  curve: string;
  publicKey: string;
  addresses: { format: string; address: string }[];
  privateKeyTags: string[];
  createdAt: ApiTimestamp;
  exported: boolean;
  imported: boolean;
}

/** The usual address format of each curve, ticked when the curve is chosen. */
const USUAL_FORMAT: Record<Curve, string[]> = {
  CURVE_SECP256K1: ["ADDRESS_FORMAT_ETHEREUM"],
  CURVE_ED25519: ["ADDRESS_FORMAT_SOLANA"],
  CURVE_P256: ["ADDRESS_FORMAT_COMPRESSED"],
};

const curveLabel = (curve: string) => CURVES.find((c) => c.value === curve)?.label ?? curve;

/** Standalone private keys of the organization being viewed, with their addresses; create and delete. */
export function PrivateKeys() {
  const { connection, organizationId } = useSession();
  const keys = useLoader(
    () => query<{ privateKeys: PrivateKey[] }>(connection.client, "list_private_keys", { organizationId }).then((r) => r.privateKeys),
    [organizationId],
  );

  return (
    <>
      <CreatePrivateKey onCreated={keys.reload} />
      <Section title="Private keys" actions={<RefreshButton onClick={keys.reload} />}>
        <CardList loaded={keys} empty="No private key yet." itemKey={(key) => key.privateKeyId}>
          {(key) => <PrivateKeyCard privateKey={key} onChanged={keys.reload} />}
        </CardList>
      </Section>
    </>
  );
}

function CreatePrivateKey({ onCreated }: { onCreated: () => void }) {
  const { connection, organizationId } = useSession();
  const [name, setName] = useState("");
  const [curve, setCurve] = useState<Curve>("CURVE_SECP256K1");
  const [formats, setFormats] = useState<string[]>(USUAL_FORMAT.CURVE_SECP256K1);
  const action = useActivity();

  function chooseCurve(next: Curve) {
    setCurve(next);
    setFormats(USUAL_FORMAT[next]);
  }

  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      () =>
        submit(connection.client, "create_private_keys", organizationId, {
          privateKeys: [{ privateKeyName: name.trim(), curve, addressFormats: formats, privateKeyTags: [] }],
        }),
      () => {
        setName("");
        onCreated();
      },
    );
  };

  return (
    <Section title="Create a private key">
      <form onSubmit={create}>
        <div className="form-row">
          <label>
            Key name
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={256} autoComplete="off" />
          </label>
          <label>
            Curve
            <select value={curve} onChange={(e) => chooseCurve(e.target.value as Curve)}>
              <Options options={CURVES} />
            </select>
          </label>
        </div>
        <Checklist
          inline
          legend="Address formats"
          options={formatsForCurve(curve).map((format) => ({ value: format, label: ADDRESS_FORMATS[format].label }))}
          chosen={formats}
          onChange={setFormats}
        />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? "Creating…" : "Create private key"}
          </button>
        </div>
      </form>
      <ActivityOutcome activity={action.activity} error={action.error} />
    </Section>
  );
}

function PrivateKeyCard({ privateKey, onChanged }: { privateKey: PrivateKey; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [deleting, setDeleting] = useState(false);
  const action = useActivity();
  const neverExported = !privateKey.exported && !privateKey.imported;

  const remove = (withoutExport: boolean) =>
    void action.run(
      () =>
        submit(connection.client, "delete_private_keys", organizationId, {
          privateKeyIds: [privateKey.privateKeyId],
          ...(withoutExport ? { deleteWithoutExport: true } : {}),
        }),
      onChanged,
    );

  return (
    <article className="card" aria-label={`Private key ${privateKey.privateKeyName}`}>
      <h3>{privateKey.privateKeyName}</h3>
      <p className="muted">
        {curveLabel(privateKey.curve)} · <code>{privateKey.privateKeyId}</code> · created {toDate(privateKey.createdAt).toLocaleString()}
        {privateKey.imported ? " · imported" : ""}
        {privateKey.exported ? " · exported" : ""}
        {privateKey.privateKeyTags.length > 0 ? ` · ${privateKey.privateKeyTags.length} tag(s)` : ""}
      </p>
      <ul className="accounts" aria-label="Addresses">
        {privateKey.addresses.map((address) => (
          <li key={address.format}>
            <span className="account-kind">{describeFormat(address.format)}</span>
            <Copyable text={address.address} label={`${describeFormat(address.format)} address`} />
          </li>
        ))}
        <li>
          <span className="account-kind">Public key</span>
          <Copyable text={privateKey.publicKey} label="public key" />
        </li>
      </ul>
      <div className="actions">
        <button className="secondary" disabled={action.busy} onClick={() => setDeleting(!deleting)} aria-expanded={deleting}>
          Delete…
        </button>
      </div>
      {deleting && (
        <DeleteKeyMaterial
          record="private key"
          warning="This key was never exported: delete it for good"
          neverExported={neverExported}
          busy={action.busy}
          onDelete={remove}
        />
      )}
      <ActivityOutcome activity={action.activity} error={action.error} />
    </article>
  );
}
