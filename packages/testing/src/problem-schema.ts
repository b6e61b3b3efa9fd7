import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** The problem body of decisions.md section 12 as a JSON Schema; every negative test checks against it. */
export const problemSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["type", "title", "status", "code", "timestamp", "correlationId", "requestId"],
  properties: {
    type: { type: "string", format: "uri", pattern: "/problems/[a-z0-9]+(-[a-z0-9]+)*$" },
    title: { type: "string", maxLength: 128 },
    status: { type: "integer", minimum: 400, maximum: 599 },
    detail: { type: "string", maxLength: 512 },
    instance: { type: "string", format: "uri-reference" },
    code: { type: "string", pattern: "^[A-Z][A-Z0-9_]{1,63}$" },
    timestamp: { type: "string", format: "date-time" },
    correlationId: { type: "string", format: "uuid" },
    requestId: { type: "string", format: "uuid" },
    traceId: { type: "string", pattern: "^[0-9a-f]{32}$" },
    violations: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        required: ["field", "code", "message"],
        properties: {
          field: { type: "string", maxLength: 128 },
          code: { type: "string", maxLength: 64 },
          message: { type: "string", maxLength: 256 },
        },
      },
    },
  },
} as const;

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(problemSchema);

/** The schema errors of a problem body, or [] when it conforms; also checks type's slug matches code. */
export function problemSchemaErrors(body: unknown): string[] {
  const errors = validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? ""}`);
  const problem = body as { type?: string; code?: string };
  if (problem.type && problem.code && !problem.type.endsWith(`/problems/${problem.code.toLowerCase().replaceAll("_", "-")}`)) {
    errors.push(`type ${problem.type} does not name code ${problem.code}`);
  }
  return errors;
}
