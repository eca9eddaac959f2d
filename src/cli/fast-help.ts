// `kwatch <command> --help` without loading oclif: renders the help oclif would print from
// oclif.manifest.json (same sections, flag order, wrapping), so help costs a file read, not ~150 ms of imports.
// Imports nothing but Node built-ins; test/cli/fast-help.test.ts holds it to oclif's output.
import type { ManifestArg, ManifestCommand, ManifestFlag } from './oclif-manifest.js';

export interface HelpContext {
  /** "kwatch", or "kubectl kwatch" for the plugin entry. */
  bin: string;
  /** Terminal width oclif would use (see helpWidth). */
  width: number;
  /** Bold section headers and underlined <value>s, as oclif prints them on a colour terminal. */
  color?: boolean;
}

const INDENT = 2;

/** oclif's stdtermwidth: OCLIF_COLUMNS, else the terminal's width (at least 40), else 80. */
export function helpWidth(stream: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined>): number {
  const fromEnv = Number.parseInt(env.OCLIF_COLUMNS ?? '', 10);
  if (fromEnv) return fromEnv;
  if (!stream.isTTY) return 80;
  const w = stream.columns ?? 0;
  if (w < 1) return 80;
  return Math.max(40, w);
}

/**
 * The command's full help text (ending in a newline, as oclif prints it), or undefined when the
 * command uses something this renderer does not reproduce (then oclif must answer).
 */
export function renderCommandHelp(cmd: ManifestCommand, ctx: HelpContext): string | undefined {
  if (!supported(cmd)) return undefined;
  const h = new HelpText(cmd, ctx);
  return h.render();
}

function supported(cmd: ManifestCommand): boolean {
  if (cmd.state || cmd.deprecationOptions || cmd.hasDynamicHelp) return false;
  const texts = [cmd.summary, cmd.description, ...(cmd.examples ?? []).map((e) => (typeof e === 'string' ? e : `${e.description}${e.command}`))];
  for (const f of Object.values(cmd.flags ?? {})) {
    texts.push(f.summary, f.description);
  }
  for (const a of Object.values(cmd.args ?? {})) texts.push(a.description);
  // Only the two templates kwatch uses are rendered here.
  return texts.every((t) => !t || !/<%(?!= (config\.bin|command\.id) %>)/.test(t));
}

class HelpText {
  private readonly id: string;

  constructor(
    private readonly cmd: ManifestCommand,
    private readonly ctx: HelpContext,
  ) {
    this.id = cmd.id.replaceAll(':', ' ');
  }

  render(): string {
    const summary = this.cmd.summary ? this.tpl(this.cmd.summary.split('\n')[0]) : this.cmd.description ? this.tpl(this.cmd.description).split('\n')[0] : undefined;
    const body = this.sections();
    return `${summary ? `${summary}\n\n` : ''}${body}\n\n`;
  }

  /** ejs as oclif uses it, for the two templates kwatch's texts hold. */
  private tpl(s: string): string {
    return s.replaceAll('<%= config.bin %>', this.ctx.bin).replaceAll('<%= command.id %>', this.id);
  }

  private wrap(s: string, spacing = INDENT): string {
    return wrapText(this.tpl(s), this.ctx.width - spacing);
  }

  private sections(): string {
    const flags = Object.entries(this.cmd.flags ?? {})
      .filter(([, f]) => !f.hidden)
      .map(([name, f]) => ({ ...f, name }));
    flags.sort((a, b) => compare([!a.char, a.char, a.name], [!b.char, b.char, b.name]));
    const args = Object.values(this.cmd.args ?? {}).filter((a) => !a.hidden);
    const out: string[] = [];
    const push = (header: string, body: string | [string, string | undefined][] | undefined) => {
      if (body === undefined || body.length === 0) return;
      out.push(this.section(header, body));
    };
    push('USAGE', this.usage(args));
    push('ARGUMENTS', this.args(args));
    const main = flags.filter((f) => !f.helpGroup);
    const groups = new Map<string, ManifestFlag[]>();
    for (const f of flags) if (f.helpGroup) groups.set(f.helpGroup, [...(groups.get(f.helpGroup) ?? []), f]);
    push('FLAGS', this.flags(main));
    for (const [group, list] of groups) push(`${group.toUpperCase()} FLAGS`, this.flags(list));
    push('DESCRIPTION', this.description());
    push('ALIASES', this.aliases());
    push('EXAMPLES', this.examples());
    push('FLAG DESCRIPTIONS', this.flagDescriptions(flags));
    return out.join('\n\n');
  }

  private section(header: string, body: string | [string, string | undefined][]): string {
    const text = typeof body === 'string' ? this.tpl(body) : this.renderList(body.map(([l, r]) => [this.tpl(l), r && this.tpl(r)]));
    return `${this.bold(header)}\n${indent(text, INDENT)}`;
  }

  private usage(args: ManifestArg[]): string {
    const usages = this.cmd.usage ? (Array.isArray(this.cmd.usage) ? this.cmd.usage : [this.cmd.usage]) : [docopts(this.cmd, args)];
    return usages
      .map((u) => {
        const allowed = this.ctx.width - INDENT;
        const desc = u.replace('<%= command.id %>', '').replace(new RegExp(`^${this.cmd.id}`), '').replace(new RegExp(`^${this.id}`), '').trim();
        // oclif measures the line with the command id still a template, so do we.
        const line = `$ ${this.ctx.bin} <%= command.id %> ${desc}`.trim();
        if (line.length > allowed) {
          const split = line.slice(0, Math.max(0, allowed)).lastIndexOf(' ');
          return line.slice(0, Math.max(0, split)) + '\n' + indent(this.wrap(line.slice(Math.max(0, split)), INDENT * 2), INDENT);
        }
        return this.wrap(line);
      })
      .join('\n');
  }

  private args(args: ManifestArg[]): [string, string | undefined][] | undefined {
    if (!args.some((a) => a.description)) return undefined;
    return args.map((a) => {
      const suffix = a.multiple || this.cmd.strict === false ? '...' : '';
      const name = `${a.name.toUpperCase()}${suffix}`;
      let description = a.description || '';
      if (a.default) description = `[default: ${String(a.default)}] ${description}`;
      if (a.options) description = `(${a.options.join('|')}) ${description}`;
      return [a.required ? name : `[${name}]`, description || undefined];
    });
  }

  private flagLabel(f: ManifestFlag, showOptions = false): string {
    let label = f.helpLabel;
    if (!label) {
      const parts = [f.char ? `-${f.char[0]}` : '  ', f.type === 'boolean' && f.allowNo ? `--[no-]${f.name.trim()}` : `--${f.name.trim()}`];
      label = parts.join(f.char ? ', ' : '  ');
    }
    if (f.type === 'option') {
      let value = usageType(f, showOptions);
      if (!value.includes('|')) value = this.underline(value);
      label += `=${value}`;
    }
    return label;
  }

  private flags(flags: ManifestFlag[]): [string, string | undefined][] | undefined {
    if (flags.length === 0) return undefined;
    const noChar = flags.every((f) => f.char === undefined);
    return flags.map((f) => {
      let left = this.flagLabel(f);
      if (noChar) left = left.replace('    ', '');
      let right = f.summary || f.description || '';
      const meta: string[] = [];
      if (f.type === 'option') {
        if (f.default && !f.noCacheDefault) meta.push(`default: ${String(f.default)}`);
        if (f.env) meta.push(`env: ${f.env}`);
      } else if (f.env) meta.push(`env: ${f.env}`);
      if (meta.length > 0) right = `[${meta.join(', ')}] ${right}`;
      if (f.required) right = `(required) ${right}`;
      if (f.type === 'option' && f.options && !f.helpValue) right += `\n<options: ${f.options.join('|')}>`;
      return [left, right.trim()];
    });
  }

  private description(): string | undefined {
    if (!this.cmd.description) return undefined;
    const lines = this.cmd.summary ? [...`${this.cmd.summary}\n`.split(/\r\n|\n/), ...this.cmd.description.split(/\r\n|\n/)] : this.cmd.description.split(/\r\n|\n/);
    return this.wrap(lines.join('\n'));
  }

  private aliases(): string | undefined {
    if (!this.cmd.aliases?.length) return undefined;
    return this.cmd.aliases.map((a) => `$ ${this.ctx.bin} ${a}`).join('\n');
  }

  private examples(): string | undefined {
    const examples = this.cmd.examples;
    if (!examples?.length) return undefined;
    return examples
      .map((e) => {
        let description: string;
        let commands: string[];
        if (typeof e === 'string') {
          const lines = e.split(/\r\n|\n/).filter(Boolean);
          if (lines.length >= 2 && !this.isCommand(lines[0]) && lines.slice(1).every((l) => this.isCommand(l))) {
            description = lines[0];
            commands = lines.slice(1);
          } else {
            return lines.map((l) => this.formatIfCommand(l)).join('\n');
          }
        } else {
          description = e.description;
          commands = [e.command];
        }
        const spacing = INDENT * 2;
        const cmds = commands.map((c) => indent(this.wrap(this.formatIfCommand(c), spacing + 4), INDENT).split(/\r\n|\n/).join(' \\\n  ')).join('\n');
        return `${this.wrap(description, spacing)}\n\n${cmds}`;
      })
      .join('\n\n');
  }

  private flagDescriptions(flags: ManifestFlag[]): string | undefined {
    const extended = flags.filter((f) => f.summary && f.description);
    if (extended.length === 0) return undefined;
    return extended
      .map((f) => {
        const summary = f.summary || '';
        let text = this.flagLabel(f, true);
        if (!f.char) text = text.replace('    ', '');
        text += text.length + summary.length + 2 < this.ctx.width ? `  ${summary}` : `\n\n${indent(this.wrap(summary, INDENT * 2), INDENT)}`;
        return `${text}\n\n${indent(this.wrap(f.description || '', INDENT * 2), INDENT)}`;
      })
      .join('\n\n');
  }

  private formatIfCommand(example: string): string {
    const e = this.tpl(example);
    if (e.startsWith(this.ctx.bin)) return `$ ${e}`;
    if (e.startsWith(`$ ${this.ctx.bin}`)) return `$${e.replace('$', '')}`;
    return e;
  }

  private isCommand(example: string): boolean {
    return this.formatIfCommand(example).startsWith(`$ ${this.ctx.bin}`);
  }

  /** oclif's HelpFormatter.renderList with indentation 2. */
  private renderList(input: [string, string | undefined][]): string {
    const indentation = INDENT;
    if (input.length === 0) return '';
    const multiline = () => {
      let output = '';
      for (const [left, right] of input) {
        if (!left && !right) continue;
        if (left) output += this.wrap(left.trim(), indentation);
        if (right) output += '\n' + indent(this.wrap(right.trim(), indentation + 2), 4);
        output += '\n\n';
      }
      return output.trim();
    };
    const maxLength = Math.max(...input.map(([l]) => Math.max(...l.split('\n').map(visibleWidth))));
    let output = '';
    let cur = '';
    for (const [left, r] of input) {
      if (cur) output += '\n' + cur;
      cur = left || '';
      if (!r) {
        cur = cur.trim();
        continue;
      }
      const right = this.wrap(r.trim(), indentation + maxLength + 2);
      const [first, ...lines] = right.split('\n').map((s) => s.trim());
      cur += ' '.repeat(Math.max(0, maxLength - visibleWidth(cur) + 2)) + first;
      if (lines.length === 0) continue;
      if (lines.length > 4) return multiline();
      cur += '\n' + indent(lines.join('\n'), maxLength + 2);
    }
    if (cur) output += '\n' + cur;
    return output.trim();
  }

  private bold(s: string): string {
    return this.ctx.color ? `\x1b[1m${s}\x1b[22m` : s;
  }

  private underline(s: string): string {
    return this.ctx.color ? `\x1b[4m${s}\x1b[24m` : s;
  }
}

/** oclif's DocOpts: ID ARGS, then the flags (required first), grouped by dependsOn/exclusive/combinable. */
function docopts(cmd: ManifestCommand, args: ManifestArg[]): string {
  const parts = ['<%= command.id %>'];
  for (const a of args) {
    const suffix = a.multiple || cmd.strict === false ? '...' : '';
    parts.push(a.required ? `${a.name.toUpperCase()}${suffix}` : `[${a.name.toUpperCase()}${suffix}]`);
  }
  // DocOpts walks the flags in manifest order, not help order; a Map keeps insertion order as oclif's object does.
  const list = Object.entries(cmd.flags ?? {})
    .filter(([, f]) => !f.hidden)
    .map(([name, f]) => ({ ...f, name }));
  const flagMap = new Map(list.map((f) => [f.name, f]));
  const elements = new Map<string, string>();
  const element = (f: ManifestFlag) => `${f.char ? `-${f.char}` : `--${f.name}`}${f.type === 'option' ? ` ${usageType(f, true)}` : ''}`;
  for (const f of list.filter((f) => f.required)) elements.set(f.name, element(f));
  for (const f of list.filter((f) => !f.required)) elements.set(f.name, element(f));
  const combine = (name: string, others: string[], union: string) => {
    const flag = flagMap.get(name);
    if (!flag) return;
    const required = flag.required === true || others.some((o) => flagMap.get(o)?.required === true);
    for (const o of others) {
      elements.set(name, `${elements.get(name) || ''}${union}${elements.get(o) || ''}`);
      elements.delete(o);
      flagMap.delete(o);
    }
    elements.set(name, required ? `(${elements.get(name) || ''})` : `[${elements.get(name) || ''}]`);
    flagMap.delete(name);
  };
  for (const f of list) {
    if (Array.isArray(f.dependsOn)) combine(f.name, f.dependsOn, ' ');
    let exclusive: Set<string> | undefined = Array.isArray(f.exclusive) ? new Set(f.exclusive) : undefined;
    if (Array.isArray(f.combinable)) {
      const combinable = new Set(f.combinable);
      exclusive ??= new Set();
      for (const other of list) if (other !== f && !combinable.has(other.name)) exclusive.add(other.name);
    }
    if (exclusive && exclusive.size > 0) combine(f.name, [...exclusive], ' | ');
  }
  for (const [name, f] of flagMap) if (!f.required) elements.set(name, `[${elements.get(name) || ''}]`);
  return [...parts, ...elements.values()].join(' ');
}

/** oclif's DocOpts.formatUsageType. */
function usageType(f: ManifestFlag, showOptions: boolean): string {
  if (f.type !== 'option') return '';
  const values = f.helpValue ? (typeof f.helpValue === 'string' ? [f.helpValue] : f.helpValue) : f.options ? [showOptions ? f.options.join('|') : '<option>'] : ['<value>'];
  return values.map((v) => `${v}${f.multiple ? '...' : ''}`).join(' ');
}

function compare(a: unknown, b: unknown): number {
  a = a === undefined ? 0 : a;
  b = b === undefined ? 0 : b;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length === 0 && b.length === 0) return 0;
    const diff = compare(a[0], b[0]);
    if (diff !== 0) return diff;
    return compare(a.slice(1), b.slice(1));
  }
  if ((a as number) < (b as number)) return -1;
  if ((a as number) > (b as number)) return 1;
  return 0;
}

function indent(s: string, n: number): string {
  const pad = ' '.repeat(n);
  return s.replace(/^(?!\s*$)/gm, pad);
}

/** Columns a string takes: code points, ANSI escapes excluded (kwatch's help has no wide characters). */
function visibleWidth(s: string): number {
  // eslint-disable-next-line no-control-regex
  return [...s.replace(/\x1b\[[0-9;]*m/g, '')].length;
}

/** wrap-ansi 7 with {hard: true} (what oclif wraps help with), for text without ANSI escapes. */
export function wrapText(text: string, columns: number): string {
  return text
    .normalize()
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => wrapLine(line, columns))
    .join('\n');
}

function wrapLine(line: string, columns: number): string {
  if (line.trim() === '') return '';
  const words = line.split(' ');
  const lengths = words.map(visibleWidth);
  let rows = [''];
  const lastRow = () => rows[rows.length - 1];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    rows[rows.length - 1] = lastRow().trimStart();
    let rowLength = visibleWidth(lastRow());
    if (i !== 0 && rowLength > 0) {
      rows[rows.length - 1] += ' ';
      rowLength++;
    }
    if (lengths[i] > columns) {
      const remaining = columns - rowLength;
      const breaksThisLine = 1 + Math.floor((lengths[i] - remaining - 1) / columns);
      const breaksNextLine = Math.floor((lengths[i] - 1) / columns);
      if (breaksNextLine < breaksThisLine) rows.push('');
      rows = wrapWord(rows, word, columns);
      continue;
    }
    if (rowLength + lengths[i] > columns && rowLength > 0 && lengths[i] > 0) rows.push('');
    rows[rows.length - 1] += word;
  }
  return rows.map(trimSpacesRight).join('\n');
}

function wrapWord(rows: string[], word: string, columns: number): string[] {
  const chars = [...word];
  let visible = visibleWidth(rows[rows.length - 1]);
  for (let i = 0; i < chars.length; i++) {
    if (visible + 1 <= columns) rows[rows.length - 1] += chars[i];
    else {
      rows.push(chars[i]);
      visible = 0;
    }
    visible++;
    if (visible === columns && i < chars.length - 1) {
      rows.push('');
      visible = 0;
    }
  }
  if (!visible && rows[rows.length - 1].length > 0 && rows.length > 1) rows[rows.length - 2] += rows.pop();
  return rows;
}

function trimSpacesRight(s: string): string {
  const words = s.split(' ');
  let last = words.length;
  while (last > 0 && visibleWidth(words[last - 1]) === 0) last--;
  if (last === words.length) return s;
  return words.slice(0, last).join(' ') + words.slice(last).join('');
}
