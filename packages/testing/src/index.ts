export { problemSchema, problemSchemaErrors } from "./problem-schema";
