/** Size bounds of a problem body (delivery-api.md, Errors), enforced where problems are rendered. */
export const PROBLEM_BOUNDS = { title: 128, detail: 512, field: 128, message: 256, violations: 20 } as const;

/** How much of the caller's own input a message quotes (a query parameter's name, say). */
const ECHO_MAX = 64;

/**
 * `text` cut to at most `max` characters, the cut marked with an ellipsis. A cut never splits a
 * surrogate pair, so the result stays valid UTF-16 (and within `max` code points).
 */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The caller's input as a message quotes it: bounded, whatever was sent. */
export function echo(input: string): string {
  return clip(input, ECHO_MAX);
}
