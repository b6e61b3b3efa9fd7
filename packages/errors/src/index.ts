export { DomainError, type ErrorKind } from "./domain-error";
export {
  AlreadyExistsError,
  DependencyUnavailableError,
  FailedPreconditionError,
  NotFoundError,
  ValidationError,
  VersionConflictError,
} from "./common-errors";
