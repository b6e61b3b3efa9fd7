import { parseArgs } from "node:util";
import { Code, createAdminClient, failureOf } from "./admin-client";
import { COMMANDS, UsageError, type Command } from "./commands";

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function helpText(): string[] {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return [
    "usage: ./tawsil <command> [arguments]",
    "",
    "Operates the merchant service through its admin listener: MERCHANT_ADMIN_URL, else the one this",
    "checkout's `make dev` recorded in .dev/credentials.env (TAWSIL_MERCHANT_ADMIN_URL); in a cluster,",
    "`kubectl port-forward deploy/merchant 7011` and MERCHANT_ADMIN_URL=http://127.0.0.1:7011.",
    "",
    ...COMMANDS.flatMap((command) => [`  ${command.name.padEnd(width)}  ${command.summary}`, `  ${" ".repeat(width)}    ${command.name} ${command.usage}`.trimEnd()]),
    `  ${"help".padEnd(width)}  this text`,
  ];
}

function find(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  const command = COMMANDS.find((candidate) => candidate.name === argv.slice(0, 2).join(" "));
  return command && { command, rest: argv.slice(2) };
}

/**
 * Runs one command and returns the process exit code. Failures print one line (the service's
 * own message, never a stack) and give 1.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    helpText().forEach((line) => (first === undefined ? io.err(line) : io.out(line)));
    return first === undefined ? 1 : 0;
  }
  const found = find(argv);
  if (!found) {
    io.err(`tawsil: unknown command "${argv.slice(0, 2).join(" ")}"; see \`./tawsil help\``);
    return 1;
  }
  const { command, rest } = found;
  const url = io.env.MERCHANT_ADMIN_URL ?? "";
  try {
    // Never a fixed default port: it would be whichever checkout's `make dev` holds it.
    if (!url) throw new UsageError("MERCHANT_ADMIN_URL is not set; see `./tawsil help`");
    const { values, positionals } = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    if (positionals.length !== command.positionals.length) throw new UsageError(`usage: ./tawsil ${command.name} ${command.usage}`.trimEnd());
    const args = Object.fromEntries(command.positionals.map((name, i) => [name, positionals[i] ?? ""]));
    await command.run({ args, values, admin: createAdminClient(url), out: io.out, err: io.err });
    return 0;
  } catch (error) {
    const failure = failureOf(error);
    // Unimplemented: the url reaches a merchant service, but its service port, not its admin listener.
    if (failure.code === Code.Unimplemented) io.err(`tawsil: ${url} serves no admin RPCs; point MERCHANT_ADMIN_URL at the merchant service's ADMIN_PORT`);
    else io.err(`tawsil: ${failure.message}${failure.code === Code.Unavailable || failure.code === Code.DeadlineExceeded ? ` (merchant admin listener at ${url})` : ""}`);
    return 1;
  }
}
