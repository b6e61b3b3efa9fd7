export { problemSchema, problemSchemaErrors } from "./problem-schema";
export { freePort } from "./free-port";
