import { createContext, useContext, type ReactNode } from "react";
import { query } from "../api/requests.js";
import { useSession } from "../session-context.js";
import { useLoader } from "./use-loader.js";

/** What an id stands for in this organization: users (the signed-in one marked "you"), user tags, wallets, private keys. */
export type Names = ReadonlyMap<string, string>;

const NamesContext = createContext<Names>(new Map());

/** Loads the organization's names once per organization, for every page below it. */
export function NamesProvider({ children }: { children: ReactNode }) {
  const { connection, organizationId } = useSession();
  const names = useLoader(async () => {
    const body = { organizationId };
    const [users, tags, wallets, keys] = await Promise.all([
      query<{ users: { userId: string; userName: string }[] }>(connection.client, "list_users", body).catch(() => ({ users: [] })),
      query<{ userTags: { tagId: string; tagName: string }[] }>(connection.client, "list_user_tags", body).catch(() => ({ userTags: [] })),
      query<{ wallets: { walletId: string; walletName: string }[] }>(connection.client, "list_wallets", body).catch(() => ({
        wallets: [],
      })),
      query<{ privateKeys: { privateKeyId: string; privateKeyName: string }[] }>(connection.client, "list_private_keys", body).catch(
        () => ({
          privateKeys: [],
        }),
      ),
    ]);
    const map = new Map<string, string>();
    for (const u of users.users) map.set(u.userId, u.userId === connection.userId ? `${u.userName} (you)` : u.userName);
    for (const t of tags.userTags) map.set(t.tagId, `tag ${t.tagName}`);
    for (const w of wallets.wallets) map.set(w.walletId, `wallet ${w.walletName}`);
    for (const k of keys.privateKeys) map.set(k.privateKeyId, `private key ${k.privateKeyName}`);
    return map as Names;
  }, [organizationId, connection]);
  return <NamesContext.Provider value={names.data ?? new Map()}>{children}</NamesContext.Provider>;
}

export const useNames = (): Names => useContext(NamesContext);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Under an expression or text holding ids: which id is whom ("6cda05d6… is Alice, ee57… is Root user (you)"). */
export function IdLegend({ text }: { text: string }) {
  const names = useNames();
  const ids = [...new Set(text.match(UUID) ?? [])].filter((id) => names.has(id.toLowerCase()));
  if (ids.length === 0) return null;
  return (
    <span className="id-legend">
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 ? "; " : "where "}
          <code>{id.slice(0, 8)}…</code> is <strong>{names.get(id.toLowerCase())}</strong>
        </span>
      ))}
    </span>
  );
}
