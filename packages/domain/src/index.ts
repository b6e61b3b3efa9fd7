export { isRequirement, REQUIREMENTS, type Requirement } from "./requirements";
export { formatDegrees, parseCoordinate, type Coordinate } from "./coordinate";
export { isUuid } from "./uuid";
