/**
 * A topic is named in one place, packages/topology, and read from there: a topic name written as a
 * string elsewhere is a second declaration, which a rename would miss without a word (the topic
 * would stay, empty, and its consumers with it). The check reads every string in the workspace's
 * TypeScript, template parts and SQL in strings included; comments are free to name topics, and so
 * are generated files (the protobuf and Prisma outputs copy the comments of their sources as strings),
 * the manifests and the READMEs, which cannot import the package: tests/deploy and catalog.test.ts
 * hold those to TOPICS instead.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { TOPICS } from "../../packages/topology/src";
import { ROOT } from "../deploy/kustomize";

const TOPIC_NAMES = TOPICS.map((t) => t.topic);
const EXEMPT = /^packages\/topology\/|\/generated\/|^packages\/proto\/src\/gen\/|\/dist\//;

/** The strings of `code` that name a topic, as `line: text`. */
function topicLiterals(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      if (TOPIC_NAMES.some((topic) => node.text.includes(topic))) found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The workspace's TypeScript files, committed or not yet (a new file is checked before its commit). */
const sourceFiles = (): string[] =>
  execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", "*.ts"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter((file) => file !== "" && !EXEMPT.test(file));

describe("topic names", () => {
  it("are written as strings in packages/topology alone", () => {
    const strays = sourceFiles().flatMap((file) => topicLiterals(file, readFileSync(path.join(ROOT, file), "utf8")).map((hit) => `${file}:${hit}`));
    expect(strays).toEqual([]);
  });

  it("are found in a string, a template's parts and SQL, not in a comment", () => {
    const [topic] = TOPIC_NAMES;
    const code = [
      `// reads ${topic}`,
      `const a = "${topic}";`,
      `const b = \`consume ${topic} at \${Date.now()}\`;`,
      `const c = \`\${a} and ${topic}\`;`,
      `const d = "SELECT 1 FROM outbox_event WHERE topic = '${topic}'";`,
    ].join("\n");
    expect(topicLiterals("example.ts", code).map((hit) => hit.split(":")[0])).toEqual(["2", "3", "4", "5"]);
  });
});
