import { Type } from "@sinclair/typebox";

export const TreeSize = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const AuditCheckpoint = Type.Object({
  checkpoint: Type.String({ description: "The checkpoint: a C2SP tlog-checkpoint signed note (origin, tree size, root hash, signature)" }),
  treeSize: Type.Integer(),
  rootHash: Type.String({ description: "The RFC 6962 root hash, base64" }),
  signedAt: Type.String({ description: "When the server signed it (not covered by the signature)" }),
});

export const AuditEntry = Type.Object({
  index: Type.Integer(),
  entry: Type.String({ description: "The entry's exact bytes: canonical JSON; its leaf hash is SHA-256(0x00 ‖ entry)" }),
});
