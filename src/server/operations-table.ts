import { activityDefinitions } from "../activities/registry.js";
import { queryDefinitions } from "../queries/registry.js";

/** The README's table of supported operations, generated from the registries. */
export function operationsTable(): string {
  const rows = [
    "| path | kind | activity type | intent key → result key | SDK method | what it does |",
    "|---|---|---|---|---|---|",
    ...activityDefinitions.map(
      (d) => `| \`/public/v1/submit/${d.operation}\` | activity | \`${d.type}\` | \`${d.intentKey}\` → \`${d.resultKey}\` | \`${d.sdkMethod}\` | ${d.summary} |`,
    ),
    ...queryDefinitions.map((d) => `| \`/public/v1/query/${d.operation}\` | query | | | \`${d.sdkMethod}\` | ${d.summary} |`),
  ];
  return `${activityDefinitions.length} activities and ${queryDefinitions.length} queries.\n\n${rows.join("\n")}`;
}

export const TABLE_START = "<!-- operations:start -->";
export const TABLE_END = "<!-- operations:end -->";

/** The README with its operations section replaced by the current table. */
export function withOperationsTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md lacks the ${TABLE_START} … ${TABLE_END} markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n${operationsTable()}\n${readme.slice(end)}`;
}
