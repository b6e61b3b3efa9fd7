export { rankOf, SERVICE_LEVELS, type ServiceLevel } from "@tawsil/domain";
