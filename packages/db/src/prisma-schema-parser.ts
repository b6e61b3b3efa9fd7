/**
 * A reader for the subset of the Prisma schema language that drift detection needs: model and
 * enum blocks with their fields, type modifiers and attributes, and datasource settings.
 *
 * Why parse at all: Prisma 7's generated client prunes its runtime data model to names, database
 * names and scalar kinds. Optionality, lists, native types, ids, uniques, indexes and relations
 * survive only in the schema text the client embeds (`inlineSchema`), so that text is what the
 * client "declares". Anything unexpected is an error, never a silent skip.
 */
export type AttributeValue =
  | { kind: "string"; value: string }
  | { kind: "number"; value: string }
  | { kind: "constant"; name: string }
  | { kind: "call"; name: string; args: AttributeArgument[] }
  | { kind: "array"; items: AttributeValue[] };

export interface AttributeArgument {
  name?: string;
  value: AttributeValue;
}

export interface Attribute {
  /** Without the `@`/`@@`, e.g. `id`, `db.Timestamptz`, `index`. */
  name: string;
  args: AttributeArgument[];
}

export interface FieldDeclaration {
  name: string;
  type: string;
  optional: boolean;
  list: boolean;
  attributes: Attribute[];
}

export interface BlockDeclaration {
  keyword: string;
  name: string;
  /** Fields of a model, values of an enum (type "" for enum values). */
  fields: FieldDeclaration[];
  /** `@@` attributes. */
  attributes: Attribute[];
  /** `key = value` settings of datasource and generator blocks. */
  settings: Map<string, AttributeValue>;
}

interface Token {
  kind: "ident" | "string" | "number" | "punct" | "newline";
  text: string;
  line: number;
}

export function parsePrismaSchema(source: string): BlockDeclaration[] {
  return new Parser(tokenize(source)).blocks();
}

/** The first argument named `name`, or the first positional argument when `name` is undefined. */
export function argument(attribute: Attribute, name?: string): AttributeValue | undefined {
  return attribute.args.find((arg) => arg.name === name)?.value;
}

export function findAttribute(attributes: Attribute[], name: string): Attribute | undefined {
  return attributes.find((attribute) => attribute.name === name);
}

const TOKEN = /(\/\/[^\n]*)|(\n)|([ \t\r]+)|("(?:[^"\\\n]|\\.)*")|(-?\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|(@@|[{}()[\],:=?@.])/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < source.length) {
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(source);
    if (!match) throw new Error(`Unexpected character ${JSON.stringify(source[at])} on schema line ${line}`);
    const [text, comment, newline, space, string, number, ident] = match;
    if (newline) {
      tokens.push({ kind: "newline", text, line });
      line += 1;
    } else if (comment || space) {
      continue;
    } else if (string) {
      tokens.push({ kind: "string", text: JSON.parse(string) as string, line });
    } else if (number) {
      tokens.push({ kind: "number", text, line });
    } else if (ident) {
      tokens.push({ kind: "ident", text, line });
    } else {
      tokens.push({ kind: "punct", text, line });
    }
  }
  return tokens;
}

class Parser {
  private at = 0;
  /** Open ( and [ around the cursor: inside them newlines are insignificant. */
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  blocks(): BlockDeclaration[] {
    const blocks: BlockDeclaration[] = [];
    for (this.skipNewlines(); this.tokens[this.at]; this.skipNewlines()) {
      const keyword = this.expect("ident").text;
      const name = this.expect("ident").text;
      this.expect("punct", "{");
      blocks.push(this.blockBody(keyword, name));
    }
    return blocks;
  }

  private blockBody(keyword: string, name: string): BlockDeclaration {
    const block: BlockDeclaration = { keyword, name, fields: [], attributes: [], settings: new Map() };
    for (this.skipNewlines(); !this.accept("punct", "}"); this.skipNewlines()) {
      if (this.accept("punct", "@@")) {
        block.attributes.push(this.attributeAfterAt());
      } else if (keyword === "datasource" || keyword === "generator") {
        const key = this.expect("ident").text;
        this.expect("punct", "=");
        block.settings.set(key, this.value());
      } else if (keyword === "enum") {
        const value = this.expect("ident").text;
        block.fields.push({ name: value, type: "", optional: false, list: false, attributes: this.fieldAttributes() });
      } else {
        block.fields.push(this.field());
      }
      this.endOfStatement();
    }
    return block;
  }

  private field(): FieldDeclaration {
    const name = this.expect("ident").text;
    let type = this.expect("ident").text;
    if (this.peekIs("punct", "(")) type += `(${this.callArgs().map((arg) => JSON.stringify(arg.value)).join(",")})`;
    let list = false;
    if (this.accept("punct", "[")) {
      this.expect("punct", "]");
      list = true;
    }
    const optional = this.accept("punct", "?") !== undefined;
    return { name, type, optional, list, attributes: this.fieldAttributes() };
  }

  private fieldAttributes(): Attribute[] {
    const attributes: Attribute[] = [];
    while (this.accept("punct", "@")) attributes.push(this.attributeAfterAt());
    return attributes;
  }

  private attributeAfterAt(): Attribute {
    const name = this.dottedName(this.expect("ident").text);
    return { name, args: this.peekIs("punct", "(") ? this.callArgs() : [] };
  }

  private callArgs(): AttributeArgument[] {
    this.expect("punct", "(");
    const args: AttributeArgument[] = [];
    while (!this.accept("punct", ")")) {
      if (args.length > 0) this.expect("punct", ",");
      const following = this.tokens[this.at + 1];
      if (this.peekIs("ident") && following?.kind === "punct" && following.text === ":") {
        const name = this.expect("ident").text;
        this.expect("punct", ":");
        args.push({ name, value: this.value() });
      } else {
        args.push({ value: this.value() });
      }
    }
    return args;
  }

  private value(): AttributeValue {
    const token = this.next();
    if (token.kind === "string") return { kind: "string", value: token.text };
    if (token.kind === "number") return { kind: "number", value: token.text };
    if (token.kind === "punct" && token.text === "[") {
      const items: AttributeValue[] = [];
      while (!this.accept("punct", "]")) {
        if (items.length > 0) this.expect("punct", ",");
        items.push(this.value());
      }
      return { kind: "array", items };
    }
    if (token.kind === "ident") {
      const name = this.dottedName(token.text);
      return this.peekIs("punct", "(") ? { kind: "call", name, args: this.callArgs() } : { kind: "constant", name };
    }
    throw this.error(token, "a value");
  }

  private dottedName(first: string): string {
    let name = first;
    while (this.accept("punct", ".")) name += `.${this.expect("ident").text}`;
    return name;
  }

  private endOfStatement(): void {
    const token = this.tokens[this.at];
    if (token && token.kind !== "newline" && !(token.kind === "punct" && token.text === "}")) {
      throw this.error(token, "end of line");
    }
  }

  private skipNewlines(): void {
    while (this.tokens[this.at]?.kind === "newline") this.at += 1;
  }

  private peekIs(kind: Token["kind"], text?: string): boolean {
    if (this.depth > 0) this.skipNewlines();
    const token = this.tokens[this.at];
    return token !== undefined && token.kind === kind && (text === undefined || token.text === text);
  }

  private next(): Token {
    if (this.depth > 0) this.skipNewlines();
    const token = this.tokens[this.at];
    if (!token) throw new Error("Cannot read the Prisma schema: unexpected end");
    this.at += 1;
    if (token.kind === "punct" && (token.text === "(" || token.text === "[")) this.depth += 1;
    if (token.kind === "punct" && (token.text === ")" || token.text === "]")) this.depth -= 1;
    return token;
  }

  private accept(kind: Token["kind"], text?: string): Token | undefined {
    return this.peekIs(kind, text) ? this.next() : undefined;
  }

  private expect(kind: Token["kind"], text?: string): Token {
    const token = this.accept(kind, text);
    if (!token) throw this.error(this.tokens[this.at], text ?? kind);
    return token;
  }

  private error(token: Token | undefined, wanted: string): Error {
    const found = token ? `${JSON.stringify(token.text)} on line ${token.line}` : "the end";
    return new Error(`Cannot read the Prisma schema: expected ${wanted}, found ${found}`);
  }
}
