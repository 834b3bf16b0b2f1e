import { useState, type FormEvent } from "react";
import { getRootQuorum, listUsers, listUserTags, type Tag, type User } from "../api/identity.js";
import { submit } from "../api/requests.js";
import { ActivityOutcome, useActivity } from "../components/ActivityOutcome.js";
import { DeleteButton, ErrorNote, Loading, RefreshButton, Section } from "../components/common.js";
import { Checklist } from "../components/choices.js";
import { DataTable } from "../components/DataTable.js";
import { useLoader } from "../components/use-loader.js";
import { href } from "../routes.js";
import { useSession } from "../session-context.js";

/** The organization's users (create, edit, delete) and its user tags. Every change is an activity the policies decide. */
export function Users() {
  const { connection, organizationId } = useSession();
  const users = useLoader(() => listUsers(connection.client, organizationId), [organizationId]);
  const tags = useLoader(() => listUserTags(connection.client, organizationId), [organizationId]);
  const quorum = useLoader(() => getRootQuorum(connection.client, organizationId).then((c) => c.quorum), [organizationId]);
  /** The users whose row has its editor or its delete confirmation open under it. */
  const [opened, setOpened] = useState<Record<string, "edit" | "delete">>({});
  const reload = () => {
    users.reload();
    tags.reload();
    quorum.reload();
  };
  const tagName = new Map((tags.data ?? []).map((t) => [t.tagId, t.tagName]));
  const open = (user: User, mode?: "edit" | "delete") => {
    const { [user.userId]: _closed, ...others } = opened;
    setOpened(mode ? { ...others, [user.userId]: mode } : others);
  };
  const inQuorum = (user: User) => (quorum.data ? (quorum.data.userIds.includes(user.userId) ? "Yes" : "No") : "");

  return (
    <>
      <Section title="Users" actions={<RefreshButton onClick={reload} />}>
        <Loading when={users.loading && !users.data} />
        <ErrorNote error={users.error} />
        <DataTable
          compact
          rows={users.data ?? []}
          rowKey={(user) => user.userId}
          rowLabel={(user) => user.userName}
          columns={[
            {
              header: "Name",
              rowHeader: true,
              cell: (user) => (
                <>
                  {user.userName}
                  {user.userId === connection.userId && <small className="muted"> (you)</small>}
                </>
              ),
            },
            {
              header: "Contact",
              cell: (user) => (
                <>
                  {user.userEmail && <div>{user.userEmail}</div>}
                  {user.userPhoneNumber && <div>{user.userPhoneNumber}</div>}
                </>
              ),
            },
            {
              header: "Tags",
              cell: (user) =>
                user.userTags.map((id) => (
                  <span key={id} className="tag">
                    {tagName.get(id) ?? id}
                  </span>
                )),
            },
            {
              header: "Credentials",
              cell: (user) => (
                <>
                  <div>{plural(user.apiKeys.length, "API key")}</div>
                  <div>{plural(user.authenticators.length, "passkey")}</div>
                </>
              ),
            },
            { header: "Root quorum", cell: inQuorum },
          ]}
          actions={(user) => (
            <div className="row-actions">
              <button
                className="secondary"
                aria-expanded={opened[user.userId] === "edit"}
                onClick={() => open(user, opened[user.userId] === "edit" ? undefined : "edit")}
              >
                Edit<span className="visually-hidden"> {user.userName}</span>
              </button>
              <DeleteButton what={user.userName} onClick={() => open(user, "delete")} />
            </div>
          )}
          detail={(user) =>
            opened[user.userId] === "edit" ? (
              <EditUser
                user={user}
                tags={tags.data ?? []}
                onDone={() => {
                  open(user);
                  reload();
                }}
              />
            ) : opened[user.userId] === "delete" ? (
              <DeleteUser key={user.userId} user={user} onCancel={() => open(user)} onDeleted={reload} />
            ) : undefined
          }
        />
        {quorum.data && (
          <p className="muted">
            Root quorum: {quorum.data.threshold} of {quorum.data.userIds.length} must approve. <a href={href("settings")}>Change it</a>
          </p>
        )}
      </Section>
      <NewUser tags={tags.data ?? []} onCreated={reload} />
      <UserTags tags={tags.data} users={users.data ?? []} error={tags.error} onChanged={reload} />
    </>
  );
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

/** Asks before deleting; once the activity is sent, says what became of it (it may wait for approvals). */
function DeleteUser({ user, onCancel, onDeleted }: { user: User; onCancel: () => void; onDeleted: () => void }) {
  const { connection, organizationId } = useSession();
  const action = useActivity();
  const remove = () =>
    void action.run(() => submit(connection.client, "delete_users", organizationId, { userIds: [user.userId] }), onDeleted);

  return (
    <>
      {!action.activity && (
        <div className="actions confirm" role="group" aria-label={`Delete ${user.userName}`}>
          <span>
            Delete <strong>{user.userName}</strong> with all their credentials?
          </span>
          <button className="danger" disabled={action.busy} onClick={remove}>
            Confirm delete
          </button>
          <button className="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      )}
      <ActivityOutcome activity={action.activity} error={action.error} done={`Deleted ${user.userName}.`} />
    </>
  );
}

function EditUser({ user, tags, onDone }: { user: User; tags: Tag[]; onDone: () => void }) {
  const { connection, organizationId } = useSession();
  const [userName, setUserName] = useState(user.userName);
  const [userEmail, setUserEmail] = useState(user.userEmail ?? "");
  const [userPhoneNumber, setUserPhoneNumber] = useState(user.userPhoneNumber ?? "");
  const [tagIds, setTagIds] = useState<string[]>(user.userTags);
  const action = useActivity();

  async function save(event: FormEvent) {
    event.preventDefault();
    const removedTags = user.userTags.filter((id) => !tagIds.includes(id));
    const updated = await action.run(() =>
      submit(connection.client, "update_user", organizationId, {
        userId: user.userId,
        ...(userName !== user.userName ? { userName } : {}),
        // An empty email or phone number removes it.
        ...(userEmail !== (user.userEmail ?? "") ? { userEmail } : {}),
        ...(userPhoneNumber !== (user.userPhoneNumber ?? "") ? { userPhoneNumber } : {}),
        // A non-empty list replaces the user's tags; an empty one would leave them as they are.
        ...(tagIds.length > 0 ? { userTagIds: tagIds } : {}),
      }),
    );
    if (updated?.status !== "ACTIVITY_STATUS_COMPLETED") return;
    // update_user cannot take away a user's last tags: update_user_tag removes them from each tag.
    if (tagIds.length === 0) {
      for (const userTagId of removedTags) {
        const removed = await action.run(() =>
          submit(connection.client, "update_user_tag", organizationId, {
            userTagId,
            addUserIds: [],
            removeUserIds: [user.userId],
          }),
        );
        if (removed?.status !== "ACTIVITY_STATUS_COMPLETED") return;
      }
    }
    onDone();
  }

  return (
    <form className="inline-form" onSubmit={(e) => void save(e)} aria-label={`Edit ${user.userName}`}>
      <label>
        Name
        <input value={userName} onChange={(e) => setUserName(e.target.value)} required />
      </label>
      <label>
        Email
        <input type="email" value={userEmail} onChange={(e) => setUserEmail(e.target.value)} />
      </label>
      <label>
        Phone (E.164)
        <input type="tel" value={userPhoneNumber} onChange={(e) => setUserPhoneNumber(e.target.value)} placeholder="+13214567890" />
      </label>
      <TagChoice tags={tags} chosen={tagIds} onChange={setTagIds} />
      <div className="actions">
        <button type="submit" disabled={action.busy}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
      <ActivityOutcome activity={action.activity} error={action.error} done="Saved." />
    </form>
  );
}

function TagChoice({ tags, chosen, onChange }: { tags: Tag[]; chosen: string[]; onChange: (ids: string[]) => void }) {
  if (tags.length === 0) return null;
  return (
    <Checklist legend="Tags" options={tags.map((tag) => ({ value: tag.tagId, label: tag.tagName }))} chosen={chosen} onChange={onChange} />
  );
}

function NewUser({ tags, onCreated }: { tags: Tag[]; onCreated: () => void }) {
  const { connection, organizationId } = useSession();
  const [userName, setUserName] = useState("");
  const [userEmail, setUserEmail] = useState("");
  const [userPhoneNumber, setUserPhoneNumber] = useState("");
  const [tagIds, setTagIds] = useState<string[]>([]);
  const action = useActivity();

  async function create(event: FormEvent) {
    event.preventDefault();
    await action.run(
      () =>
        submit(connection.client, "create_users", organizationId, {
          users: [
            {
              userName: userName.trim(),
              ...(userEmail.trim() ? { userEmail: userEmail.trim() } : {}),
              ...(userPhoneNumber.trim() ? { userPhoneNumber: userPhoneNumber.trim() } : {}),
              apiKeys: [],
              authenticators: [],
              oauthProviders: [],
              userTags: tagIds,
            },
          ],
        }),
      () => {
        setUserName("");
        setUserEmail("");
        setUserPhoneNumber("");
        setTagIds([]);
        onCreated();
      },
    );
  }

  return (
    <Section title="New user">
      <form className="inline-form" onSubmit={(e) => void create(e)} aria-label="New user">
        <label>
          Name
          <input value={userName} onChange={(e) => setUserName(e.target.value)} required />
        </label>
        <label>
          Email <small>(optional)</small>
          <input type="email" value={userEmail} onChange={(e) => setUserEmail(e.target.value)} />
        </label>
        <label>
          Phone <small>(optional, E.164)</small>
          <input type="tel" value={userPhoneNumber} onChange={(e) => setUserPhoneNumber(e.target.value)} placeholder="+13214567890" />
        </label>
        <TagChoice tags={tags} chosen={tagIds} onChange={setTagIds} />
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            Create user
          </button>
        </div>
        <ActivityOutcome
          activity={action.activity}
          error={action.error}
          done="User created. Add their API keys and passkeys on the next page."
        />
      </form>
    </Section>
  );
}

function UserTags({ tags, users, error, onChanged }: { tags?: Tag[]; users: User[]; error?: string; onChanged: () => void }) {
  const { connection, organizationId } = useSession();
  const [name, setName] = useState("");
  const action = useActivity();
  const carriers = (tagId: string) => users.filter((u) => u.userTags.includes(tagId)).length;

  const create = (event: FormEvent) => {
    event.preventDefault();
    void action.run(
      () =>
        submit(connection.client, "create_user_tag", organizationId, {
          userTagName: name.trim(),
          userIds: [],
        }),
      () => {
        setName("");
        onChanged();
      },
    );
  };
  const remove = (tag: Tag) =>
    void action.run(() => submit(connection.client, "delete_user_tags", organizationId, { userTagIds: [tag.tagId] }), onChanged);

  return (
    <Section title="User tags">
      <ErrorNote error={error} />
      {tags?.length === 0 && <p className="muted">No user tags yet. Policies can name users by tag (user.tags).</p>}
      <ul className="tag-list">
        {tags?.map((tag) => (
          <li key={tag.tagId}>
            <span className="tag">{tag.tagName}</span>
            <small className="muted">
              {carriers(tag.tagId)} user{carriers(tag.tagId) === 1 ? "" : "s"}
            </small>
            <button className="secondary" disabled={action.busy} onClick={() => remove(tag)}>
              Delete<span className="visually-hidden"> tag {tag.tagName}</span>
            </button>
          </li>
        ))}
      </ul>
      <form className="inline-form" onSubmit={create} aria-label="New user tag">
        <label>
          Tag name
          <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <div className="actions">
          <button type="submit" disabled={action.busy}>
            Create tag
          </button>
        </div>
      </form>
      <ActivityOutcome activity={action.activity} error={action.error} done="Done." />
    </Section>
  );
}
