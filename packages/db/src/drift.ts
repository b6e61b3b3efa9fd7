// The schema drift check, apart from the runtime entry point: it loads Prisma's schema engine
// (WebAssembly), which no service needs at run time, so no bundle carries it.
export { findSchemaDrift } from "./schema-drift";
export { readPrismaSchema, type PrismaSchema } from "./prisma-schema";
