/** Kafka record headers every Tawsil event carries; the value is the protobuf payload. */
export const EVENT_HEADERS = {
  id: "event-id",
  type: "event-type",
  contentType: "content-type",
} as const;

export const PROTOBUF_CONTENT_TYPE = "application/x-protobuf";
