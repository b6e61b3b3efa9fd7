export { onboardDriver, rotateOrIssue, DriverClientNotIssuedError, type DriverAdmins, type NewDriver, type OnboardedDriver } from "./onboard-driver";
