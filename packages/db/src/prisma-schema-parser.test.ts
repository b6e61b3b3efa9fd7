import { describe, expect, it } from "vitest";
import { parsePrismaSchema } from "./prisma-schema-parser";

describe("parsePrismaSchema", () => {
  const schema = `
// comment
datasource db {
  provider     = "postgresql"
  relationMode = "prisma"
}

/// documented
model Book {
  id       String   @id @default(uuid()) @db.Uuid // trailing comment
  tags     String[]
  authorId Int?     @map("author_id")
  author   Author?  @relation(fields: [authorId], references: [id], onDelete: Cascade)
  price    Decimal  @db.Decimal(10, 2)
  @@index([authorId(sort: Desc),
           price])
  @@map("book")
}

enum Mood {
  HAPPY @map("happy")
  SAD
}
`;

  it("reads fields with their modifiers and attributes, and block attributes across lines", () => {
    const [datasource, book, mood] = parsePrismaSchema(schema);
    expect(datasource?.settings.get("relationMode")).toEqual({ kind: "string", value: "prisma" });
    expect(book?.fields.map((field) => [field.name, field.type, field.optional, field.list])).toEqual([
      ["id", "String", false, false],
      ["tags", "String", false, true],
      ["authorId", "Int", true, false],
      ["author", "Author", true, false],
      ["price", "Decimal", false, false],
    ]);
    expect(book?.fields[0]?.attributes).toEqual([
      { name: "id", args: [] },
      { name: "default", args: [{ value: { kind: "call", name: "uuid", args: [] } }] },
      { name: "db.Uuid", args: [] },
    ]);
    expect(book?.fields[3]?.attributes[0]?.args).toEqual([
      { name: "fields", value: { kind: "array", items: [{ kind: "constant", name: "authorId" }] } },
      { name: "references", value: { kind: "array", items: [{ kind: "constant", name: "id" }] } },
      { name: "onDelete", value: { kind: "constant", name: "Cascade" } },
    ]);
    expect(book?.attributes.map((attribute) => attribute.name)).toEqual(["index", "map"]);
    expect(book?.attributes[0]?.args[0]?.value).toEqual({
      kind: "array",
      items: [
        { kind: "call", name: "authorId", args: [{ name: "sort", value: { kind: "constant", name: "Desc" } }] },
        { kind: "constant", name: "price" },
      ],
    });
    expect(mood?.fields.map((value) => [value.name, value.attributes.length])).toEqual([
      ["HAPPY", 1],
      ["SAD", 0],
    ]);
  });

  it("fails with the line of anything it does not understand", () => {
    expect(() => parsePrismaSchema("model A {\n  id Int @id }\n  x ! y\n}")).toThrow(/line 3/);
  });
});
