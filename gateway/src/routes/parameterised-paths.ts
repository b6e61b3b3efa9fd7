/**
 * The path templates of the routes that take a parameter, collected as routes are registered. The
 * router refuses a path that does not percent-decode before it matches any route; these tell a
 * malformed parameter of a real route (400 INVALID_PARAMETER) from a path that names nothing
 * (404 RESOURCE_NOT_FOUND, the document's rule for every path it does not describe).
 */
export class ParameterisedPaths {
  private readonly patterns: RegExp[] = [];

  add(url: string): void {
    if (!url.includes(":")) return;
    const segments = url.split("/").map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    this.patterns.push(new RegExp(`^${segments.join("/")}$`));
  }

  /** Whether a raw (undecoded) request target has the shape of a route with a parameter. */
  matches(target: string): boolean {
    const path = target.split("?", 1)[0]!;
    return this.patterns.some((pattern) => pattern.test(path));
  }
}
