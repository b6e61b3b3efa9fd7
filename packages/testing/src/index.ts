export { problemSchema, problemSchemaErrors } from "./problem-schema";
export { freePort } from "./free-port";
export { capturedLogger } from "./captured-logger";
export { failure } from "./connect-failure";
export { createMigratedDatabase, type TestDatabase } from "./test-database";
export { rawQuery } from "./raw-query";
export { openApiResponseCheck, validateResponsesFrom, type ResponseCheck } from "./openapi-responses";
export { countPgRoundTrips, type RoundTripCounter } from "./pg-round-trips";
export { artefactDirFor, failureReport, forgetErrorAnswers, recordErrorAnswersFrom, watchProcessLogs, type ErrorAnswer } from "./process-logs";
