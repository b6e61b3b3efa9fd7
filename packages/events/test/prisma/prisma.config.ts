// Prisma CLI configuration for the events test fixture; paths are relative to this file.
// `prisma generate` needs no database, so DATABASE_URL may be absent.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "schema.prisma",
  migrations: { path: "migrations" },
  datasource: { url: process.env.DATABASE_URL },
});
