export { DomainError, type ErrorKind } from "./domain-error";
export {
  AlreadyExistsError,
  DependencyUnavailableError,
  DuplicateError,
  InvalidArgumentError,
  PermissionDeniedError,
  ReasonedError,
  UnauthenticatedError,
  FailedPreconditionError,
  NotFoundError,
  ValidationError,
  VersionConflictError,
} from "./common-errors";
