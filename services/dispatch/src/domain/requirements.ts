// The vehicle rule lives in @tawsil/domain, shared with pricing's reading of dispatch.city-staffing.v1.
export { levelCanHonour } from "@tawsil/domain";
