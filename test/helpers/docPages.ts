import { readFileSync } from "node:fs";
import { expect } from "vitest";

// What the docs-page suites (test/docs/*Doc.test.ts) share: reading a file of the repository, the
// anchors GitHub gives a page's headings, and the check that every relative link resolves.

/** A file of the repository, by its path from the root. */
export function readRepoFile(path: string): string {
  return readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as `-`. */
export function headingSlug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

/** Every heading anchor of a Markdown page. */
export function headingAnchors(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) => headingSlug(m[1] as string)));
}

/** Every relative link of `doc` (a page under docs/) names a file, and a heading there, that exist; at least `minimum` of them. */
export function expectLinksResolve(doc: string, minimum: number): void {
  const links = [...doc.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] as string).filter((link) => !/^[a-z]+:/.test(link));
  expect(links.length).toBeGreaterThan(minimum);
  for (const link of links) {
    const [file, anchor] = link.split("#") as [string, string | undefined];
    const target = file === "" ? doc : readRepoFile(`docs/${file}`);
    if (anchor !== undefined) expect(headingAnchors(target), link).toContain(anchor);
  }
}
