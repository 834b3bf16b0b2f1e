import { useState, type FormEvent } from "react";
import { query, submit, toDate, type ApiTimestamp } from "../api/requests.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { describeFormat } from "../components/address-formats.js";
import { DeleteKeyMaterial } from "../components/DeleteKeyMaterial.js";
import { CardList } from "../components/CardList.js";
import { RefreshButton, Section } from "../components/common.js";
import { Copyable } from "../components/CopyButton.js";
import { useLoader } from "../components/use-loader.js";
import { useSession } from "../session-context.js";

interface Wallet {
  walletId: string;
  walletName: string;
  createdAt: ApiTimestamp;
  exported: boolean;
  imported: boolean;
}

interface WalletAccount {
  walletAccountId: string;
  walletId: string;
  curve: string;
  path: string;
  addressFormat: string;
  address: string;
}

/** The accounts the console offers, each at an index n of its usual derivation path. */
const PRESETS = [
  {
    id: "ethereum",
    label: "Ethereum",
    curve: "CURVE_SECP256K1",
    addressFormat: "ADDRESS_FORMAT_ETHEREUM",
    path: (n: number) => `m/44'/60'/0'/0/${n}`,
    index: /^m\/44'\/60'\/0'\/0\/(\d+)$/,
  },
  {
    id: "solana",
    label: "Solana",
    curve: "CURVE_ED25519",
    addressFormat: "ADDRESS_FORMAT_SOLANA",
    path: (n: number) => `m/44'/501'/${n}'/0'`,
    index: /^m\/44'\/501'\/(\d+)'\/0'$/,
  },
  {
    id: "bitcoin",
    label: "Bitcoin native segwit",
    curve: "CURVE_SECP256K1",
    addressFormat: "ADDRESS_FORMAT_BITCOIN_MAINNET_P2WPKH",
    path: (n: number) => `m/84'/0'/0'/0/${n}`,
    index: /^m\/84'\/0'\/0'\/0\/(\d+)$/,
  },
] as const;
type Preset = (typeof PRESETS)[number];
const presetOf = (id: string): Preset => PRESETS.find((p) => p.id === id) ?? PRESETS[0];

/** The preset's account after the highest one the wallet has on that path (0 for the first). */
function nextAccount(preset: Preset, accounts: WalletAccount[]) {
  const taken = accounts
    .filter((a) => a.addressFormat === preset.addressFormat)
    .map((a) => preset.index.exec(a.path)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const n = taken.length === 0 ? 0 : Math.max(...taken) + 1;
  return { curve: preset.curve, pathFormat: "PATH_FORMAT_BIP32", path: preset.path(n), addressFormat: preset.addressFormat };
}

/** The presets, each named with the path of the account it would add (after `accounts`, the wallet's own). */
function PresetSelect(props: { value: string; onChange: (id: string) => void; label: string; accounts: WalletAccount[] }) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {PRESETS.map((preset) => (
          <option key={preset.id} value={preset.id}>
            {preset.label} ({nextAccount(preset, props.accounts).path})
          </option>
        ))}
      </select>
    </label>
  );
}

/** HD wallets of the organization being viewed, their accounts and addresses; create, extend, rename, delete. */
export function Wallets() {
  const { connection, organizationId } = useSession();
  const wallets = useLoader(async () => {
    const [list, accounts] = await Promise.all([
      query<{ wallets: Wallet[] }>(connection.client, "list_wallets", { organizationId }),
      query<{ accounts: WalletAccount[] }>(connection.client, "list_wallet_accounts", { organizationId }),
    ]);
    return list.wallets.map((wallet) => ({ wallet, accounts: accounts.accounts.filter((a) => a.walletId === wallet.walletId) }));
  }, [organizationId]);

  return (
    <>
      <CreateWallet onCreated={wallets.reload} />
      <Section title="Wallets" actions={<RefreshButton onClick={wallets.reload} />}>
        <CardList loaded={wallets} empty="No wallet yet." itemKey={({ wallet }) => wallet.walletId}>
          {({ wallet, accounts }) => <WalletCard wallet={wallet} accounts={accounts} onChanged={wallets.reload} />}
        </CardList>
      </Section>
    </>
  );
}

function CreateWallet({ onCreated }: { onCreated: () => void }) {
  const { connection, organizationId } = useSession();
  const [name, setName] = useState("");
  const [mnemonicLength, setMnemonicLength] = useState("12");
  const [preset, setPreset] = useState<string>(PRESETS[0].id);
  const action = useActivity();

  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      () =>
        submit(connection.client, "create_wallet", organizationId, {
          walletName: name.trim(),
          mnemonicLength: Number(mnemonicLength),
          accounts: [nextAccount(presetOf(preset), [])],
        }),
      () => {
        setName("");
        onCreated();
      },
    );
  };

  return (
    <Section title="Create a wallet">
      <form className="form-row" onSubmit={create}>
        <label>
          Wallet name
          <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={256} autoComplete="off" />
        </label>
        <label>
          Mnemonic length
          <select value={mnemonicLength} onChange={(e) => setMnemonicLength(e.target.value)}>
            {[12, 15, 18, 21, 24].map((words) => (
              <option key={words} value={words}>
                {words} words
              </option>
            ))}
          </select>
        </label>
        <PresetSelect label="First account" value={preset} onChange={setPreset} accounts={[]} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create wallet"}
        </button>
      </form>
      <ActivityOutcome activity={action.activity} error={action.error} />
    </Section>
  );
}

function WalletCard({ wallet, accounts, onChanged }: { wallet: Wallet; accounts: WalletAccount[]; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [preset, setPreset] = useState<string>(PRESETS[0].id);
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(wallet.walletName);
  const [deleting, setDeleting] = useState(false);
  const action = useActivity();
  const neverExported = !wallet.exported && !wallet.imported;

  const addAccount = () =>
    void action.run(
      () =>
        submit(connection.client, "create_wallet_accounts", organizationId, {
          walletId: wallet.walletId,
          accounts: [nextAccount(presetOf(preset), accounts)],
        }),
      onChanged,
    );

  async function rename(event: FormEvent) {
    event.preventDefault();
    const result = await action.run(
      () =>
        submit(connection.client, "update_wallet", organizationId, {
          walletId: wallet.walletId,
          walletName: newName.trim(),
        }),
      onChanged,
    );
    if (result) setRenaming(false);
  }

  const remove = (withoutExport: boolean) =>
    void action.run(
      () =>
        submit(connection.client, "delete_wallets", organizationId, {
          walletIds: [wallet.walletId],
          ...(withoutExport ? { deleteWithoutExport: true } : {}),
        }),
      onChanged,
    );

  return (
    <article className="card" aria-label={`Wallet ${wallet.walletName}`}>
      <h3>{wallet.walletName}</h3>
      <p className="muted">
        <code>{wallet.walletId}</code> · created {toDate(wallet.createdAt).toLocaleString()}
        {wallet.imported ? " · imported" : ""}
        {wallet.exported ? " · exported" : ""}
      </p>
      {accounts.length === 0 ? (
        <p className="muted">No account.</p>
      ) : (
        <ul className="accounts" aria-label="Accounts">
          {accounts.map((account) => (
            <li key={account.walletAccountId}>
              <span className="account-kind">
                {describeFormat(account.addressFormat)} <code>{account.path}</code>
              </span>
              <Copyable text={account.address} label={`address ${account.path}`} />
            </li>
          ))}
        </ul>
      )}
      <div className="actions">
        <PresetSelect label="Account to add" value={preset} onChange={setPreset} accounts={accounts} />
        <button className="secondary" disabled={action.busy} onClick={addAccount}>
          Add account
        </button>
        <button className="secondary" disabled={action.busy} onClick={() => setRenaming(!renaming)} aria-expanded={renaming}>
          Rename
        </button>
        <button className="secondary" disabled={action.busy} onClick={() => setDeleting(!deleting)} aria-expanded={deleting}>
          Delete…
        </button>
      </div>
      {renaming && (
        <form className="form-row" onSubmit={(e) => void rename(e)}>
          <label>
            New name
            <input value={newName} onChange={(e) => setNewName(e.target.value)} required maxLength={256} autoComplete="off" />
          </label>
          <button type="submit" disabled={action.busy}>
            Save name
          </button>
        </form>
      )}
      {deleting && (
        <DeleteKeyMaterial
          record="wallet"
          warning="This wallet was never exported: delete its key material for good"
          neverExported={neverExported}
          busy={action.busy}
          onDelete={remove}
        />
      )}
      <ActivityOutcome activity={action.activity} error={action.error} />
    </article>
  );
}
