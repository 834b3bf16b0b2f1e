import type { Queryable } from "../../store/database.js";
import { SEALED_COLUMNS } from "../rekey.js";
import { readSealRow } from "./keyring-rows.js";

export interface KeyVersionReport {
  version: number;
  wrappedBy: string;
  /** Sealed values under this version, over every sealed column. */
  values: number;
  sealFrom: Date;
  resealFrom: Date;
}

/** What `strongroom keyring status` prints: the provider, each version and how many values it seals. */
export interface KeyringReport {
  provider: string | null;
  versions: KeyVersionReport[];
  /** Values still sealed straight under the file key (`v1:`, before the keyring): moved in the background. */
  valuesBeforeKeyring: number;
}

export async function keyringReport(db: Queryable): Promise<KeyringReport> {
  const seal = await readSealRow(db);
  const counts = new Map<string, number>();
  for (const sealed of SEALED_COLUMNS) {
    const rows = await db.query<{ version: string; n: string }>(
      `SELECT CASE WHEN ${sealed.column} LIKE 'v1:%' THEN 'v1' ELSE split_part(${sealed.column}, ':', 2) END AS version, count(*)::text AS n
       FROM ${sealed.table} WHERE ${sealed.column} IS NOT NULL GROUP BY 1`,
    );
    for (const row of rows) counts.set(row.version, (counts.get(row.version) ?? 0) + Number(row.n));
  }
  const versions = await db.query<{
    version: number;
    wrapped_by: string;
    seal_from: Date;
    reseal_from: Date;
  }>("SELECT version, wrapped_by, seal_from, reseal_from FROM keyring ORDER BY version");
  return {
    provider: seal?.provider ?? null,
    versions: versions.map((v) => ({
      version: Number(v.version),
      wrappedBy: v.wrapped_by,
      values: counts.get(String(v.version)) ?? 0,
      sealFrom: v.seal_from,
      resealFrom: v.reseal_from,
    })),
    valuesBeforeKeyring: counts.get("v1") ?? 0,
  };
}
