import type { KeyPath } from "./keyReads.js";

interface Node {
  member: boolean;
  readonly children: Map<PropertyKey, Node>;
}

/**
 * A set of key paths as a tree, so asking about a path costs its length, not the set's size: a
 * file with thousands of bad keys is checked in time linear in its size.
 */
export class KeyTree {
  readonly #root: Node = { member: false, children: new Map() };
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `path`; false when it was there already. */
  add(path: KeyPath): boolean {
    let node = this.#root;
    for (const step of path) {
      let child = node.children.get(step);
      if (child === undefined) {
        child = { member: false, children: new Map() };
        node.children.set(step, child);
      }
      node = child;
    }
    if (node.member) return false;
    node.member = true;
    this.#size += 1;
    return true;
  }

  /** Whether `path` is a member or lies under one. */
  covers(path: KeyPath): boolean {
    return this.#walk(path) === "member";
  }

  /** Whether `path` is a member, lies under one, or has one under it. */
  touches(path: KeyPath): boolean {
    return this.#walk(path) !== "absent";
  }

  /**
   * Follows `path` from the root: `member` at the first member on the way (the root included),
   * `absent` where the path leaves the tree, `inner` when all of it is in the tree with no member
   * on it — a node exists only on the way to a member, so one lies under it.
   */
  #walk(path: KeyPath): "member" | "absent" | "inner" {
    let node = this.#root;
    if (node.member) return "member";
    for (const step of path) {
      const child = node.children.get(step);
      if (child === undefined) return "absent";
      if (child.member) return "member";
      node = child;
    }
    return "inner";
  }
}
