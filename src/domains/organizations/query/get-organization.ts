import { Type } from "@sinclair/typebox";
import { rootQuorum, QuorumRecord } from "../../../records/organization.js";
import { toApiTimestamp, ApiTimestamp } from "../../../schema/timestamp.js";
import { loadUserRecords, UserRecord } from "../../../records/user.js";
import { Id } from "../../../schema/common.js";
import { defineQuery } from "../../../operations/query-definition.js";
import { PolicyRecord } from "../../../records/policy.js";
import { PrivateKeyRecord } from "../../../records/private-key.js";
import { WalletRecord } from "../../../records/wallet.js";
import { TagRecord } from "../../../schema/tag.js";
import { Feature } from "../features.js";

interface InvitationRow {
  id: string;
  receiver_user_name: string;
  receiver_email: string;
  receiver_user_tags: string[];
  access_type: string;
  status: string;
  sender_user_id: string;
  created_at: Date;
  updated_at: Date;
}

export const getOrganization = defineQuery({
  operation: "get_organization",
  sdkMethod: "getOrganization",
  summary: "The organization with its users, invitations, tags, root quorum and features",
  body: Type.Object({ organizationId: Id() }),
  result: Type.Object({
    organizationData: Type.Object({
      organizationId: Type.String(),
      name: Type.String(),
      users: Type.Array(UserRecord),
      policies: Type.Array(PolicyRecord),
      privateKeys: Type.Array(PrivateKeyRecord),
      invitations: Type.Array(
        Type.Object({
          invitationId: Type.String(),
          receiverUserName: Type.String(),
          receiverEmail: Type.String(),
          receiverUserTags: Type.Array(Type.String()),
          accessType: Type.String(),
          status: Type.String(),
          createdAt: ApiTimestamp,
          updatedAt: ApiTimestamp,
          senderUserId: Type.String(),
        }),
      ),
      tags: Type.Array(TagRecord),
      rootQuorum: QuorumRecord,
      features: Type.Array(Feature),
      wallets: Type.Array(WalletRecord),
      smartContractInterfaceReferences: Type.Array(Type.Unknown()),
    }),
  }),
  async execute({ organization, services }) {
    const db = services.db;
    const users = await loadUserRecords(db, organization.id, services.clock());
    const invitations = await db.query<InvitationRow>("SELECT * FROM invitations WHERE organization_id = $1 ORDER BY created_at, id", [
      organization.id,
    ]);
    const tags = await db.query<{ id: string; name: string; created_at: Date; updated_at: Date }>(
      "SELECT id, name, created_at, updated_at FROM user_tags WHERE organization_id = $1 ORDER BY created_at, id",
      [organization.id],
    );
    return {
      organizationData: {
        organizationId: organization.id,
        name: organization.name,
        users,
        policies: [],
        privateKeys: [],
        invitations: invitations.map((i) => ({
          invitationId: i.id,
          receiverUserName: i.receiver_user_name,
          receiverEmail: i.receiver_email,
          receiverUserTags: i.receiver_user_tags,
          accessType: i.access_type,
          status: i.status,
          createdAt: toApiTimestamp(i.created_at),
          updatedAt: toApiTimestamp(i.updated_at),
          senderUserId: i.sender_user_id,
        })),
        tags: tags.map((t) => ({
          tagId: t.id,
          tagName: t.name,
          tagType: "TAG_TYPE_USER",
          createdAt: toApiTimestamp(t.created_at),
          updatedAt: toApiTimestamp(t.updated_at),
        })),
        rootQuorum: await rootQuorum(db, organization),
        features: organization.features,
        wallets: [],
        smartContractInterfaceReferences: [],
      },
    };
  },
});
