// Prisma CLI configuration (Prisma 7 keeps the datasource url here, not in the schema).
// `prisma generate` needs no database, so DATABASE_URL may be absent; commands that connect
// (e.g. `prisma migrate deploy` where engines exist) fail on their own when it is missing.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL },
});
