import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ed25519 } from "@noble/curves/ed25519.js";
import { leafHash, MerkleFrontier, proveConsistency, proveInclusion, type Hash, type NodeId } from "../../src/crypto/merkle.js";
import { checkpointText, encodeVerifierKey, openCheckpoint, openNote, parseVerifierKey, signNote } from "../../src/crypto/signed-note.js";

/**
 * The audit log's hashing, proofs and signed notes against an independent implementation: Go's
 * golang.org/x/mod/sumdb/tlog and sumdb/note. go-tlog-vectors.json holds what the oracle (go-oracle/main.go, Go
 * 1.19 with Debian's golang-golang-x-mod-dev 0.7.0) answered for the request it holds; this code must reproduce
 * it everywhere. Where `go` and that package are installed, the oracle also runs live, on another log and on a
 * checkpoint this code signs.
 */
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const GOPATH = "/usr/share/gocode";
const goAvailable =
  spawnSync("go", ["version"], { encoding: "utf8" }).status === 0 && existsSync(join(GOPATH, "src/golang.org/x/mod/sumdb/tlog"));

interface OracleRequest {
  entries: string[];
  inclusion: Array<[number, number]>;
  consistency: Array<[number, number]>;
  note?: string;
  verifierKey?: string;
  signName?: string;
  signSeed?: string;
  signText?: string;
}
interface OracleAnswer {
  leaves: string[];
  roots: string[];
  inclusion: string[][];
  consistency: string[][];
  noteText: string;
  noteError?: string;
  signedNote: string;
  goVerifier: string;
}

function runOracle(request: OracleRequest): OracleAnswer {
  const run = spawnSync("go", ["run", "main.go"], {
    cwd: join(import.meta.dirname, "go-oracle"),
    input: JSON.stringify(request),
    encoding: "utf8",
    env: { ...process.env, GO111MODULE: "off", GOPATH, GOCACHE: join(tmpdir(), "strongroom-go-cache"), GOFLAGS: "" },
    timeout: 240_000,
  });
  if (run.status !== 0) throw new Error(`the Go oracle failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as OracleAnswer;
}

/** This code's answers to the oracle's request. */
async function ours(request: OracleRequest) {
  const frontier = new MerkleFrontier(0);
  const stored = new Map<string, Hash>();
  const roots = [frontier.root()];
  const leaves = request.entries.map((entry) => leafHash(new TextEncoder().encode(entry)));
  for (const leaf of leaves) {
    for (const node of frontier.append(leaf)) stored.set(`${node.level}/${node.index}`, node.hash);
    roots.push(frontier.root());
  }
  const read = (nodes: NodeId[]) => Promise.resolve(nodes.map((n) => stored.get(`${n.level}/${n.index}`)!));
  return {
    leaves: leaves.map(b64),
    // Go's tlog gives the empty tree 32 zero bytes; RFC 6962 (and this code) SHA-256 of nothing: size 0 is left out.
    roots: roots.slice(1).map(b64),
    inclusion: await Promise.all(request.inclusion.map(async ([index, size]) => (await proveInclusion(index, size, read)).map(b64))),
    consistency: await Promise.all(
      request.consistency.map(async ([first, second]) => (await proveConsistency(first, second, read)).map(b64)),
    ),
  };
}

describe("cross-checked with Go's golang.org/x/mod/sumdb (tlog, note)", () => {
  it("reproduces the leaves, roots, inclusion and consistency proofs Go's tlog computed, and opens the note Go signed", async () => {
    const { request, answer } = JSON.parse(readFileSync(join(import.meta.dirname, "go-tlog-vectors.json"), "utf8")) as {
      request: OracleRequest;
      answer: OracleAnswer;
    };
    expect(await ours(request)).toEqual({
      leaves: answer.leaves,
      roots: answer.roots.slice(1),
      inclusion: answer.inclusion,
      consistency: answer.consistency,
    });
    const seed = new Uint8Array(Buffer.from(request.signSeed!, "hex"));
    expect(encodeVerifierKey(request.signName!, ed25519.getPublicKey(seed))).toBe(answer.goVerifier);
    expect(openNote(answer.signedNote, parseVerifierKey(answer.goVerifier))).toBe(request.signText);
    // Go verified the checkpoint this code signed, with the verifier key this code wrote.
    expect(answer.noteError).toBeUndefined();
    expect(answer.noteText).toBe(checkpointText(openCheckpoint(request.note!, parseVerifierKey(request.verifierKey!))));
  });

  it.skipIf(!goAvailable)(
    "agrees with Go's tlog and note live, on a log of 100 entries and a checkpoint signed here",
    { timeout: 300_000 },
    async () => {
      const entries = Array.from({ length: 100 }, (_, i) => JSON.stringify({ index: i, type: "test", note: "é".repeat(i % 5) }));
      const pairs = (n: number) =>
        Array.from({ length: n }, (_, i): [number, number] => [(i * 7) % 100, 100 - ((i * 3) % 40)]).filter(([a, b]) => a < b);
      const secret = ed25519.utils.randomSecretKey();
      const name = "strongroom.audit/0123456789abcdef";
      const frontier = new MerkleFrontier(0);
      for (const entry of entries) frontier.append(leafHash(new TextEncoder().encode(entry)));
      const note = signNote(checkpointText({ origin: name, size: 100, root: frontier.root() }), name, secret);
      const request: OracleRequest = {
        entries,
        inclusion: pairs(30),
        consistency: pairs(30).map(([a, b]): [number, number] => [a + 1, b]),
        note,
        verifierKey: encodeVerifierKey(name, ed25519.getPublicKey(secret)),
        signName: "go.example/signer",
        signSeed: Buffer.from(ed25519.utils.randomSecretKey()).toString("hex"),
        signText: "signed by Go\n",
      };
      const answer = runOracle(request);
      expect(await ours(request)).toEqual({
        leaves: answer.leaves,
        roots: answer.roots.slice(1),
        inclusion: answer.inclusion,
        consistency: answer.consistency,
      });
      expect(answer.noteError).toBeUndefined();
      expect(answer.noteText).toBe(checkpointText({ origin: name, size: 100, root: frontier.root() }));
      expect(openNote(answer.signedNote, parseVerifierKey(answer.goVerifier))).toBe(request.signText);
    },
  );
});
