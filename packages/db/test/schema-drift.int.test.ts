import { afterEach, describe, expect, it } from "vitest";
import { findSchemaDrift } from "../src/drift";
import { migrate } from "../src/index";
import { createMigrationsDir, type MigrationsDir } from "./migration-fixtures";
import { createTestDatabase, type TestDatabase } from "./test-database";

// Features the services do not use yet (enums, lists, relations, native types, sort order).
const SCHEMA = `datasource db {
  provider = "postgresql"
}

enum Mood {
  HAPPY @map("happy")
  SAD

  @@map("mood")
}

model Author {
  id    Int      @id @default(autoincrement())
  name  String   @db.VarChar(200)
  tags  String[]
  mood  Mood?
  books Book[]

  @@unique([name, mood], map: "custom_uq")
  @@map("author")
}

model Book {
  id       String  @id @default(uuid()) @db.Uuid
  authorId Int?    @map("author_id")
  author   Author? @relation(fields: [authorId], references: [id])
  price    Decimal @db.Decimal(10, 2)
  isbn     String  @db.Char(13)

  @@index([authorId(sort: Desc)])
  @@map("book")
}
`;

/** What `prisma migrate dev` writes for SCHEMA. */
const MIGRATION = `-- CreateEnum
CREATE TYPE "mood" AS ENUM ('happy', 'SAD');

-- CreateTable
CREATE TABLE "author" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "tags" TEXT[],
    "mood" "mood",

    CONSTRAINT "author_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "book" (
    "id" UUID NOT NULL,
    "author_id" INTEGER,
    "price" DECIMAL(10,2) NOT NULL,
    "isbn" CHAR(13) NOT NULL,

    CONSTRAINT "book_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "custom_uq" ON "author"("name", "mood");

-- CreateIndex
CREATE INDEX "book_author_id_idx" ON "book"("author_id" DESC);

-- AddForeignKey
ALTER TABLE "book" ADD CONSTRAINT "book_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "author"("id") ON DELETE SET NULL ON UPDATE CASCADE;
`;

let db: TestDatabase | undefined;
let dir: MigrationsDir | undefined;

afterEach(async () => {
  await db?.drop();
  await dir?.remove();
});

async function driftOf(schema: string, migration: string): Promise<string[]> {
  db = await createTestDatabase("drift_features");
  dir = await createMigrationsDir({ "20260101000000_init": migration });
  await migrate(db.url, dir.path);
  return findSchemaDrift(db.url, schema);
}

describe("findSchemaDrift", () => {
  it("finds none between a schema using enums, lists, relations and native types and Prisma's migration for it", async () => {
    expect(await driftOf(SCHEMA, MIGRATION)).toEqual([]);
  });

  it("reports enum values, list nullability, a wrong column width and sort order", async () => {
    const migration = MIGRATION.replace("'happy', 'SAD'", "'happy'")
      .replace('"tags" TEXT[],', '"tags" TEXT[] NOT NULL,')
      .replace('"isbn" CHAR(13)', '"isbn" CHAR(10)')
      .replace('("author_id" DESC)', '("author_id")');
    expect(await driftOf(SCHEMA, migration)).toEqual([
      'column "author"."tags" is NOT NULL, Author.tags expects nullable',
      'column "book"."isbn" has type character(10), Book.isbn expects character(13)',
      'enum "mood" has values (happy), the schema declares (happy, SAD)',
      'table "book" has index btree "book_author_id_idx" (author_id) that the model does not declare',
      'table "book" is missing index btree "book_author_id_idx" (author_id DESC)',
    ]);
  });

  it("reports a foreign key whose referential actions differ from the relation's", async () => {
    const migration = MIGRATION.replace("ON DELETE SET NULL", "ON DELETE CASCADE");
    expect(await driftOf(SCHEMA, migration)).toEqual([
      'table "book" has foreign key "book_author_id_fkey" (author_id) -> "author" (id) on delete Cascade on update Cascade that the model does not declare',
      'table "book" is missing foreign key "book_author_id_fkey" (author_id) -> "author" (id) on delete SetNull on update Cascade',
    ]);
  });

  it("matches a partial index (preview feature partialIndexes) by name, and reports one the migration made whole", async () => {
    const partial = SCHEMA.replace('datasource db {', 'generator client {\n  provider        = "prisma-client"\n  previewFeatures = ["partialIndexes"]\n}\n\ndatasource db {').replace(
      "  @@index([authorId(sort: Desc)])",
      '  @@index([authorId(sort: Desc)])\n  @@index([isbn], map: "book_priced_isbn_idx", where: raw("price > 0"))',
    );
    const index = '\n-- CreateIndex\nCREATE INDEX "book_priced_isbn_idx" ON "book"("isbn")';
    expect(await driftOf(partial, `${MIGRATION}${index} WHERE "price" > 0;\n`)).toEqual([]);
    await db?.drop();
    await dir?.remove();
    expect(await driftOf(partial, `${MIGRATION}${index};\n`)).toEqual([
      'table "book" has index btree "book_priced_isbn_idx" (isbn) that the model does not declare',
      'table "book" is missing index partial btree "book_priced_isbn_idx" (isbn)',
    ]);
  });

  it("expects no foreign keys when the schema emulates relations (relationMode = prisma)", async () => {
    const emulated = SCHEMA.replace('provider = "postgresql"', 'provider     = "postgresql"\n  relationMode = "prisma"');
    const drift = await driftOf(emulated, MIGRATION);
    expect(drift).toEqual([
      'table "book" has foreign key "book_author_id_fkey" (author_id) -> "author" (id) on delete SetNull on update Cascade that the model does not declare',
    ]);
  });
});
