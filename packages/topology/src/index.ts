export { ADMIN_SERVICES, FLEET, hasAdmin, IDENTITIES, ownsDatabase, SERVICES, SERVICES_WITH_DATABASE, type AdminServiceName, type DatabaseServiceName, type IdentityName, type ServiceName } from "./processes";
export { ASSIGNMENT_EVENTS_TOPIC, CITY_STAFFING_TOPIC, DRIVER_LOCATION_TOPIC, MERCHANT_EVENTS_TOPIC, SHIPMENT_EVENTS_TOPIC, TOPICS, topicSpec, type TopicSpec } from "./topics";
export { BUNDLE, NODE_FLAGS, PROCESS_ENV } from "./process-runtime";
