/** An identifier as SQL: double-quoted, its own double quotes doubled. */
export const quotedIdentifier = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/**
 * The tables among `tables` (of `schema`, or of the search path) that hold at least one row, in one statement (an
 * EXISTS probe per table): what the test kit's snapshot copies and an in-memory engine's reset empties.
 */
export async function filledTables(
  query: (sql: string) => Promise<Array<{ name: string }>>,
  tables: string[],
  schema?: string,
): Promise<string[]> {
  if (tables.length === 0) return [];
  const qualified = (table: string) => (schema === undefined ? "" : `${quotedIdentifier(schema)}.`) + quotedIdentifier(table);
  const probes = tables.map((table) => `SELECT ${literal(table)} AS name WHERE EXISTS (SELECT 1 FROM ${qualified(table)})`);
  return (await query(probes.join(" UNION ALL "))).map((row) => row.name);
}
