import { sha256 as sha256Of } from "@noble/hashes/sha2.js";

/**
 * RFC 6962 (RFC 9162 §2.1) Merkle tree hashing: a leaf is SHA-256(0x00 ‖ entry), an inner node SHA-256(0x01 ‖
 * left ‖ right), the empty tree SHA-256(""). Trees are addressed by complete subtrees: node (level, index) covers
 * leaves [index·2^level, (index+1)·2^level). Every node of an incomplete right edge is computed from complete
 * ones, so storing the complete subtrees (about 2n hashes for n leaves, as Go's sumdb/tlog does) answers every
 * proof with O(log n) reads. test/crypto/merkle.test.ts checks this against published vectors and Go's tlog.
 */

export type Hash = Uint8Array;

export interface NodeId {
  level: number;
  index: number;
}

// @noble/hashes rather than node:crypto: the console verifies proofs in the browser with this module.
const sha256 = (...parts: Uint8Array[]): Hash => {
  const hash = sha256Of.create();
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const LEAF = new Uint8Array([0]);
const NODE = new Uint8Array([1]);

export const leafHash = (entry: Uint8Array): Hash => sha256(LEAF, entry);
export const nodeHash = (left: Hash, right: Hash): Hash => sha256(NODE, left, right);
export const EMPTY_ROOT: Hash = sha256();

export const hashesEqual = (a: Hash, b: Hash): boolean => a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The largest power of two smaller than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees covering leaves [start, end), left to right (the largest aligned subtree first). For the
 * ranges RFC 6962's recursion produces, hashing them right to left (rangeHash) gives MTH(D[start:end]).
 */
export function rangeNodes(start: number, end: number): NodeId[] {
  const nodes: NodeId[] = [];
  while (start < end) {
    let level = 0;
    while (start % 2 ** (level + 1) === 0 && start + 2 ** (level + 1) <= end) level++;
    nodes.push({ level, index: start / 2 ** level });
    start += 2 ** level;
  }
  return nodes;
}

/** Folds complete subtrees (left to right) into the hash of the range they cover. */
export function foldRange(hashes: Hash[]): Hash {
  if (hashes.length === 0) return EMPTY_ROOT;
  let acc = hashes[hashes.length - 1]!;
  for (let i = hashes.length - 2; i >= 0; i--) acc = nodeHash(hashes[i]!, acc);
  return acc;
}

/** Reads stored complete subtrees; every proof asks for all it needs at once. */
export type NodeReader = (nodes: NodeId[]) => Promise<Hash[]>;

/** The ranges whose hashes an inclusion proof of `index` in a tree of `size` consists of (RFC 6962 §2.1.1), leaf's sibling first. */
function inclusionRanges(index: number, start: number, end: number): Array<[number, number]> {
  if (end - start === 1) return [];
  const k = splitPoint(end - start);
  return index - start < k
    ? [...inclusionRanges(index, start, start + k), [start + k, end]]
    : [...inclusionRanges(index, start + k, end), [start, start + k]];
}

/** The ranges of a consistency proof from `first` to the tree [start, end) (RFC 6962 §2.1.2, SUBPROOF). */
function consistencyRanges(first: number, start: number, end: number, whole: boolean): Array<[number, number]> {
  const n = end - start;
  if (first === n) return whole ? [] : [[start, end]];
  const k = splitPoint(n);
  return first <= k
    ? [...consistencyRanges(first, start, start + k, whole), [start + k, end]]
    : [...consistencyRanges(first - k, start + k, end, false), [start, start + k]];
}

/** The hashes of `ranges`, reading every stored subtree they need in one call. */
async function hashRanges(ranges: Array<[number, number]>, read: NodeReader): Promise<Hash[]> {
  const perRange = ranges.map(([start, end]) => rangeNodes(start, end));
  const hashes = await read(perRange.flat());
  let at = 0;
  return perRange.map((nodes) => foldRange(hashes.slice(at, (at += nodes.length))));
}

export function proveInclusion(index: number, size: number, read: NodeReader): Promise<Hash[]> {
  if (!(index >= 0 && index < size)) throw new RangeError(`index ${index} is not in a tree of size ${size}`);
  return hashRanges(inclusionRanges(index, 0, size), read);
}

export function proveConsistency(first: number, second: number, read: NodeReader): Promise<Hash[]> {
  if (!(first >= 0 && first <= second)) throw new RangeError(`no consistency proof from size ${first} to size ${second}`);
  if (first === 0) return Promise.resolve([]);
  return hashRanges(consistencyRanges(first, 0, second, true), read);
}

/** The root of the tree of `size` leaves from its stored subtrees. */
export async function rootAt(size: number, read: NodeReader): Promise<Hash> {
  return foldRange(await read(rangeNodes(0, size)));
}

/** RFC 9162 §2.1.3.2: whether `proof` shows `leaf` at `index` in the tree of `size` whose root is `root`. */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: Hash[], root: Hash): boolean {
  if (index >= size) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else r = nodeHash(r, p);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hashesEqual(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows the tree of `first` leaves (root `firstRoot`) is a prefix of the tree of `second`. */
export function verifyConsistency(first: number, second: number, firstRoot: Hash, secondRoot: Hash, proof: Hash[]): boolean {
  if (first > second) return false;
  if (first === second) return proof.length === 0 && hashesEqual(firstRoot, secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else sr = nodeHash(sr, c);
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hashesEqual(fr, firstRoot) && hashesEqual(sr, secondRoot);
}

/**
 * The right edge of a growing tree (its compact range: one complete subtree per set bit of the size): appending a
 * leaf answers the subtrees it completes, which is what the log stores, and the root is a fold of the edge.
 */
export class MerkleFrontier {
  /** The complete subtrees of the edge, left to right (decreasing level). */
  private edge: Array<NodeId & { hash: Hash }>;

  constructor(
    private size: number,
    edge: Hash[] = [],
  ) {
    const ids = rangeNodes(0, size);
    if (ids.length !== edge.length) throw new Error(`a tree of size ${size} has ${ids.length} subtrees on its edge, not ${edge.length}`);
    this.edge = ids.map((id, i) => ({ ...id, hash: edge[i]! }));
  }

  /** The subtrees on the edge of a tree of `size` leaves, which the constructor takes. */
  static edgeOf(size: number): NodeId[] {
    return rangeNodes(0, size);
  }

  get treeSize(): number {
    return this.size;
  }

  /** Adds a leaf; answers every subtree it completes, the leaf itself first. */
  append(leaf: Hash): Array<NodeId & { hash: Hash }> {
    let node = { level: 0, index: this.size, hash: leaf };
    const completed = [node];
    while (this.edge.length > 0 && this.edge[this.edge.length - 1]!.level === node.level) {
      const left = this.edge.pop()!;
      node = { level: node.level + 1, index: left.index / 2, hash: nodeHash(left.hash, node.hash) };
      completed.push(node);
    }
    this.edge.push(node);
    this.size++;
    return completed;
  }

  root(): Hash {
    return foldRange(this.edge.map((node) => node.hash));
  }
}
