import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { relativeImports, sources } from "./helpers/sourceTree.js";

const operatorsDir = fileURLToPath(new URL("../operators", import.meta.url));


// docs/architecture.md: operators/ is the pure layer. It must not reach into the I/O edges, nor
// read the wall clock (time comes from the scheduler).
describe("the two kinds of code", () => {
  const files = sources(operatorsDir).map((path) => ({ path, text: readFileSync(path, "utf8") }));

  it("operators/ never imports from src/", () => {
    const offenders = files.filter(({ text }) => /from\s+"(\.\.\/)+src\//.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("operators/ never imports node: I/O modules", () => {
    const offenders = files.filter(({ text }) => /from\s+"node:(fs|net|http|child_process|dgram|tls)/.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });

  it("operators/ never reads the wall clock", () => {
    const offenders = files.filter(({ text }) => /Date\.now\(|new Date\(\)|DateTime\.now\(/.test(text)).map(({ path }) => path);
    expect(offenders).toEqual([]);
  });
});

// pino is an implementation detail of src/log: everything else takes `Logger` and `createLogger`
// from src/log/logger.ts, so the secret scrubbing and field cleaning there cannot be bypassed.
describe("logging goes through src/log", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const logDir = join(root, "src", "log");
  const files = ["src", "operators", "bench", "test"]
    .flatMap((dir) => sources(join(root, dir)))
    .filter((path) => !path.startsWith(logDir + "/"));

  it("no file outside src/log imports pino or pino-pretty", () => {
    const offenders = files
      .filter((path) => /(from\s+|import\(\s*)"pino(-pretty)?(\/[^"]*)?"/.test(readFileSync(path, "utf8")))
      .map((path) => path.slice(root.length));
    expect(offenders).toEqual([]);
  });
});

/** The import cycles a depth-first search meets, each once, as the files on it relative to the root (none iff the graph has none). */
function importCycles(files: readonly string[], root: string): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((path) => [path, relativeImports(path, readFileSync(path, "utf8")).filter((to) => known.has(to))]));
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (path: string): void => {
    stack.push(path);
    onStack.add(path);
    for (const to of edges.get(path) ?? []) {
      if (onStack.has(to)) {
        const cycle = stack.slice(stack.indexOf(to)).map((file) => file.slice(root.length));
        cycles.set([...cycle].sort().join(" "), cycle);
      } else if (!done.has(to)) visit(to);
    }
    stack.pop();
    onStack.delete(path);
    done.add(path);
  };
  for (const path of files) if (!done.has(path)) visit(path);
  return [...cycles.values()];
}

// Imports go one way (e.g. cli.ts → commands/* → exitCodes.ts, commandArgs.ts): a circle makes
// module initialisation order matter and the layers impossible to read apart.
describe("no import cycles", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const files = ["src", "operators"].flatMap((dir) => sources(join(root, dir)));

  it("no cycle among the relative imports of src/ and operators/", () => {
    expect(importCycles(files, root)).toEqual([]);
  });
});

/** `text` with comments and the contents of string and template literals blanked (newlines kept, so lines still count). */
function codeOnly(text: string): string {
  let out = "";
  /** Open `${` expressions of template literals, each as the brace depth it started at. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const blankUntil = (end: number) => {
    out += text.slice(i, end).replace(/[^\n]/g, " ");
    i = end;
  };
  /** Blanks a template's text from `i` up to its closing backtick or the next `${`. */
  const templateText = () => {
    let j = i;
    while (j < text.length && text[j] !== "`" && !(text[j] === "$" && text[j + 1] === "{")) j += text[j] === "\\" ? 2 : 1;
    blankUntil(j);
    if (text[i] === "`") {
      out += "`";
      i += 1;
    } else if (i < text.length) {
      out += "${";
      i += 2;
      templates.push(depth);
      depth += 1;
    }
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === "/" && next === "/") blankUntil(text.indexOf("\n", i) === -1 ? text.length : text.indexOf("\n", i));
    else if (c === "/" && next === "*") blankUntil(text.indexOf("*/", i + 2) === -1 ? text.length : text.indexOf("*/", i + 2) + 2);
    else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      out += c;
      i += 1;
      blankUntil(j);
      out += text[i] ?? "";
      i += 1;
    } else if (c === "`") {
      out += c;
      i += 1;
      templateText();
    } else {
      if (c === "{") depth += 1;
      if (c === "}") {
        depth -= 1;
        if (templates.length > 0 && templates[templates.length - 1] === depth) {
          templates.pop();
          out += c;
          i += 1;
          templateText();
          continue;
        }
      }
      out += c;
      i += 1;
    }
  }
  return out;
}

/**
 * A class member declared `private` or `protected`: the keyword at the start of a member (a line,
 * or after `{`, `(`, `,` or `;`, behind other modifiers) and followed by the member's name. Both are
 * reserved words, so in code (comments and strings blanked) nothing else can sit there. `private
 * constructor` is allowed: ES has no private constructors, and it is how a class says only its
 * static factory builds it.
 */
const accessModifier =
  /(?:^|[{(,;])[ \t]*(?:(?:public|static|readonly|override|abstract|declare|async|accessor)[ \t]+)*(private|protected)[ \t]+(?!constructor\b)(?=[\w$#[*])/gm;

/** `file:line` of each member declared with `private` or `protected` in `text`. */
function accessModifierMembers(file: string, text: string): string[] {
  const code = codeOnly(text);
  return [...code.matchAll(accessModifier)].map((match) => `${file}:${code.slice(0, match.index).split("\n").length}`);
}

// One private-field style (issue 18): ES `#private` members, which are private at run time too and
// stay out of logs and JSON; TypeScript's `private`/`protected` are a compile-time convention only.
describe("one private-field style", () => {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const files = ["src", "operators"].flatMap((dir) => sources(join(root, dir)));

  it("finds private and protected members, and nothing in comments, strings or #private", () => {
    const sample = [
      "class A {",
      "  private x = 1;",
      "  protected readonly y: number;",
      "  static private z() {}",
      "  private get w() { return 1; }",
      "  constructor(private readonly a: A, protected b?: B) {}",
      "  constructor(",
      "    private c: C,",
      "  ) {}",
      "  private constructor() {}",
      "  #fine = 'private x';",
      "  // private commented",
      "  /* private",
      "     private block */",
      "  t = `private ${'private q'} private`;",
      '  u = { private: true, "protected y": 1 };',
      "  v = obj.private;",
      "}",
    ].join("\n");
    expect(accessModifierMembers("a.ts", sample)).toEqual(["a.ts:2", "a.ts:3", "a.ts:4", "a.ts:5", "a.ts:6", "a.ts:6", "a.ts:8"]);
  });

  it("no class member in src/ or operators/ is declared private or protected", () => {
    const offenders = files.flatMap((path) => accessModifierMembers(path.slice(root.length), readFileSync(path, "utf8")));
    expect(offenders).toEqual([]);
  });
});
