import { describe, expect, it } from "vitest";
import { parseHosts } from "../../src/store/postgres-hosts.js";
import { describePostgres } from "../../src/store/postgres-wait.js";

describe("multi-host PostgreSQL URLs", () => {
  it("splits the hosts into single-host URLs, keeping credentials, database and other parameters", () => {
    expect(parseHosts("postgres://u:p%40ss@a:5432,b:5433/db?sslmode=disable&target_session_attrs=read-write")).toEqual({
      targets: ["postgres://u:p%40ss@a:5432/db?sslmode=disable", "postgres://u:p%40ss@b:5433/db?sslmode=disable"],
      readWrite: true,
    });
    expect(parseHosts("postgresql://a,b/db?target_session_attrs=primary").readWrite).toBe(true);
    expect(parseHosts("postgres://a:1,b:2/db")).toEqual({ targets: ["postgres://a:1/db", "postgres://b:2/db"], readWrite: false });
  });

  it("leaves a single-host URL as it is, and refuses target_session_attrs it does not implement", () => {
    const url = "postgres://u:p@h:5432/db?options=-c%20x%3Dy";
    expect(parseHosts(url)).toEqual({ targets: [url], readWrite: false });
    expect(() => parseHosts("postgres://a,b/db?target_session_attrs=standby")).toThrow(/target_session_attrs=standby is not supported/);
  });

  it("describes where it points without user or password", () => {
    expect(describePostgres("postgres://user:secret@a:5432,b:5433/vault?target_session_attrs=read-write")).toBe("a:5432,b:5433/vault");
    expect(describePostgres("postgres://user:secret@db.internal/")).toBe("db.internal/(the user's database)");
  });
});
