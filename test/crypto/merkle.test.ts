import { describe, expect, it } from "vitest";
import {
  EMPTY_ROOT,
  leafHash,
  MerkleFrontier,
  proveConsistency,
  proveInclusion,
  rootAt,
  verifyConsistency,
  verifyInclusion,
  type Hash,
  type NodeId,
} from "../../src/crypto/merkle.js";

/**
 * RFC 6962 hashing against vectors published by Certificate Transparency (the C++ branch's vectors, in
 * google/certificate-transparency python/ct/crypto/merkle_test.py, the same as certificate-transparency-go's
 * proof tests), and a real log's proof from the same file. Go's golang.org/x/mod/sumdb/tlog cross-checks the same
 * code on other trees in test/audit/go-oracle.test.ts.
 */
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
const fromHex = (text: string) => new Uint8Array(Buffer.from(text, "hex"));

const LEAVES = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"].map(fromHex);
const ROOTS = [
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];
const INCLUSION: Array<[number, number, string[]]> = [
  [0, 1, []],
  [
    0,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    5,
    8,
    [
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]],
  [
    1,
    5,
    [
      "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];
const CONSISTENCY: Array<[number, number, string[]]> = [
  [1, 1, []],
  [
    1,
    8,
    [
      "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
    ],
  ],
  [
    6,
    8,
    [
      "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
      "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
      "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    ],
  ],
  [
    2,
    5,
    [
      "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
      "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
    ],
  ],
];

/** The tree of `leaves` as the log stores it: every complete subtree, by (level, index). */
function storedTree(leaves: Uint8Array[]): { read: (nodes: NodeId[]) => Promise<Hash[]>; roots: Hash[] } {
  const frontier = new MerkleFrontier(0);
  const stored = new Map<string, Hash>();
  const roots = [frontier.root()];
  for (const leaf of leaves) {
    for (const node of frontier.append(leafHash(leaf))) stored.set(`${node.level}/${node.index}`, node.hash);
    roots.push(frontier.root());
  }
  return { read: (nodes) => Promise.resolve(nodes.map((n) => stored.get(`${n.level}/${n.index}`)!)), roots };
}

describe("RFC 6962 Merkle tree", () => {
  const tree = storedTree(LEAVES);

  it("hashes every prefix of the published data to the published root, the empty tree to SHA-256 of nothing", async () => {
    expect(hex(EMPTY_ROOT)).toBe(ROOTS[0]);
    expect(tree.roots.map(hex)).toEqual(ROOTS);
    for (let size = 1; size <= 8; size++) expect(hex(await rootAt(size, tree.read))).toBe(ROOTS[size]);
  });

  it("proves inclusion exactly as the published audit paths, which verify", async () => {
    for (const [index, size, path] of INCLUSION) {
      const proof = await proveInclusion(index, size, tree.read);
      expect(proof.map(hex), `${index} in ${size}`).toEqual(path);
      expect(verifyInclusion(index, size, leafHash(LEAVES[index]!), proof, fromHex(ROOTS[size]!))).toBe(true);
    }
  });

  it("proves consistency exactly as the published proofs, which verify", async () => {
    for (const [first, second, path] of CONSISTENCY) {
      const proof = await proveConsistency(first, second, tree.read);
      expect(proof.map(hex), `${first} to ${second}`).toEqual(path);
      expect(verifyConsistency(first, second, fromHex(ROOTS[first]!), fromHex(ROOTS[second]!), proof)).toBe(true);
    }
  });

  it("verifies a real log's audit path (leaf 848049 of 3630887, from the same published tests)", () => {
    const path = [
      "1a208aeebcd1b39fe2de247ee8db9454e1e93a312d206b87f6ca9cc6ec6f1ddd",
      "0a1b78b383f580856f433c01a5741e160d451c185910027f6cc9f828687a40c4",
      "3d1745789bc63f2da15850de1c12a5bf46ed81e1cc90f086148b1662e79aab3d",
      "9095b61e14d8990acf390905621e62b1714fb8e399fbb71de5510e0aef45affe",
      "0a332b91b8fab564e6afd1dd452449e04619b18accc0ff9aa8393cd4928451f2",
      "2336f0181d264aed6d8f3a6507ca14a8d3b3c3a23791ac263e845d208c1ee330",
      "b4ce56e300590500360c146c6452edbede25d4ed83919278749ee5dbe178e048",
      "933f6ddc848ea562e4f9c5cfb5f176941301dad0c6fdb9d1fbbe34fac1be6966",
      "b95a6222958a86f74c030be27c44f57dbe313e5e7c7f4ffb98bcbd3a03bb52f2",
      "daeeb3ce5923defd0faeb8e0c210b753b85b809445d7d3d3cd537a9aabaa9c45",
      "7fadd0a13e9138a2aa6c3fdec4e2275af233b94812784f66bcca9aa8e989f2bc",
      "1864e6ba3e32878610546539734fb5eeae2529991f130c575c73a7e25a2a7c56",
      "12842d1202b1dc6828a17ab253c02e7ce9409b5192430feba44189f39cc02d66",
      "29af64b16fa3053c13d02ac63aa75b23aa468506e44c3a2315edc85d2dc22b11",
      "b527b99934a0bd9edd154e449b0502e2c499bba783f3bc3dfe23364b6b532009",
      "4584db8ae8e351ace08e01f306378a92bfd43611714814f3d834a2842d69faa8",
      "86a9a41573b0d6e4292f01e93243d6cc65b30f06606fc6fa57390e7e90ed580f",
      "a88b98fbe84d4c6aae8db9d1605dfac059d9f03fe0fcb0d5dff1295dacba09e6",
      "06326dc617a6d1f7021dc536026dbfd5fffc6f7c5531d48ef6ccd1ed1569f2a1",
      "f41fe8fdc3a2e4e8345e30216e7ebecffee26ff266eeced208a6c2a3cf08f960",
      "40cf5bde8abb76983f3e98ba97aa36240402975674e120f234b3448911090f8d",
      "b3222dc8658538079883d980d7fdc2bef9285344ea34338968f736b04aeb387a",
    ].map(fromHex);
    const leaf = fromHex("7a395c866d5ecdb0cccb623e011dbc392cd348d1d1d72776174e127a24b09c78");
    const root = fromHex("78316a05c9bcf14a3a4548f5b854a9adfcd46a4c034401b3ce7eb7ac2f1d0ecb");
    expect(verifyInclusion(848049, 3630887, leaf, path, root)).toBe(true);
    expect(verifyInclusion(848050, 3630887, leaf, path, root)).toBe(false);
  });

  it("refuses proofs that are altered, truncated, lengthened or claimed for another index, size or root", async () => {
    const proof = await proveInclusion(5, 8, tree.read);
    const root = fromHex(ROOTS[8]!);
    const leaf = leafHash(LEAVES[5]!);
    const flipped = proof.map((h, i) => (i === 1 ? h.map((b, j) => (j === 0 ? b ^ 1 : b)) : h));
    expect(verifyInclusion(5, 8, leaf, flipped, root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, proof.slice(0, -1), root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, [...proof, EMPTY_ROOT], root)).toBe(false);
    expect(verifyInclusion(4, 8, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(8, 8, leaf, proof, root)).toBe(false);
    expect(verifyInclusion(5, 8, leaf, proof, fromHex(ROOTS[7]!))).toBe(false);
    const consistency = await proveConsistency(6, 8, tree.read);
    const root6 = fromHex(ROOTS[6]!);
    expect(verifyConsistency(6, 8, root6, root, consistency.slice(0, -1))).toBe(false);
    expect(verifyConsistency(6, 8, root, root, consistency)).toBe(false);
    expect(verifyConsistency(8, 6, root, root6, [])).toBe(false);
    expect(verifyConsistency(8, 8, root, root, [])).toBe(true);
    expect(verifyConsistency(0, 8, EMPTY_ROOT, root, [])).toBe(true);
  });

  it("answers proofs for every index and pair of sizes of a larger tree that verify", async () => {
    const big = storedTree(Array.from({ length: 40 }, (_, i) => new TextEncoder().encode(`entry ${i}`)));
    for (let size = 1; size <= 40; size += 3) {
      for (let index = 0; index < size; index++) {
        const leaf = leafHash(new TextEncoder().encode(`entry ${index}`));
        expect(verifyInclusion(index, size, leaf, await proveInclusion(index, size, big.read), big.roots[size]!)).toBe(true);
      }
      for (let first = 1; first <= size; first += 2) {
        const proof = await proveConsistency(first, size, big.read);
        expect(verifyConsistency(first, size, big.roots[first]!, big.roots[size]!, proof), `${first} to ${size}`).toBe(true);
      }
    }
  });
});
