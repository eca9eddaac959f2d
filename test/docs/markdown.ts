// What the docs test reads in Markdown: the runnable command blocks with the output they show, the links, and the
// anchors GitHub gives headings. Kept apart from the test so that each rule has its own small test.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The comment that marks the fenced ```console block after it as runnable. */
export const RUNNABLE = /^<!-- runnable(?::\s*([^>]*?))?\s*-->$/;

export interface Command {
  /** The shell line after `$ `. */
  line: string;
  /** What the text says it exits with: a trailing `# exit N`, else the block's `exit=N`, else 0. */
  exit: number;
  /** The lines the text shows after it, up to the next `$ ` line. */
  output: string[];
}

export interface RunnableBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  commands: Command[];
}

/** Every runnable block of a Markdown text, each command with the exit code and output the text shows. */
export function runnableBlocks(file: string, text: string): RunnableBlock[] {
  const lines = text.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = RUNNABLE.exec(lines[i].trim());
    if (!marker) continue;
    if (!/^```console\s*$/.test(lines[i + 1] ?? '')) throw new Error(`${file}:${i + 1}: a runnable marker must be followed by a \`\`\`console block`);
    const blockExit = Number(/exit=(\d+)/.exec(marker[1] ?? '')?.[1] ?? 0);
    const commands: Command[] = [];
    let j = i + 2;
    for (; j < lines.length && !lines[j].startsWith('```'); j++) {
      if (lines[j].startsWith('$ ')) {
        const own = /#\s*exit\s+(\d+)\s*$/.exec(lines[j]);
        commands.push({ line: lines[j].slice(2), exit: own ? Number(own[1]) : blockExit, output: [] });
      } else if (commands.length) commands[commands.length - 1].output.push(lines[j]);
      else throw new Error(`${file}:${j + 1}: a runnable block starts with a \`$ \` command line`);
    }
    blocks.push({ file, line: i + 2, commands });
    i = j;
  }
  return blocks;
}

/**
 * A line with what changes from run to run taken out: paths under /tmp, every word holding a digit (times,
 * resourceVersions, ports, sizes, ids, generated names), runs of digits joined by . : , and the width of columns
 * and table borders.
 */
export function skeleton(line: string): string {
  return line
    .replace(/\/tmp\/[^\s()]*/g, '/tmp/*')
    .replace(/[\p{L}\p{N}_]*\p{N}[\p{L}\p{N}_]*/gu, '#')
    .replace(/#(?:[.:,]#)*/g, '#')
    .replace(/[─━]+/g, '─')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A shown line that stands for lines left out: `…` or `...` alone. */
const ELIDED = /^\s*(…|\.\.\.)\s*$/;

/**
 * The shown lines whose shape the actual output lacks (empty: it prints what the text shows). Shapes are compared as
 * a set, not in order: concurrent stages and stdout/stderr interleave differently from run to run.
 */
export function missingShapes(shown: string[], actual: string): string[] {
  const have = new Set(actual.split('\n').map(skeleton));
  return shown.filter((l) => l.trim() && !ELIDED.test(l)).filter((l) => !have.has(skeleton(l)));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/<[^>]*>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Text outside fenced code blocks (their lines blanked, so line numbers stay). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((l) => {
    if (/^\s*(```|~~~)/.test(l)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : l;
  });
}

/** Every anchor of a Markdown text: its headings' slugs (repeats numbered as GitHub does) and HTML ids. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const l of prose(text)) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (h) {
      const base = slug(h[1].replace(/`/g, ''));
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n ? `${base}-${n}` : base);
    }
    for (const m of l.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]);
  }
  return out;
}

export interface Link {
  file: string;
  line: number;
  target: string;
}

/** The relative links of a Markdown text (inline code and fenced blocks left out; web and mail links skipped). */
export function localLinks(file: string, text: string): Link[] {
  const links: Link[] = [];
  prose(text).forEach((l, i) => {
    // Inline code is masked with as many characters, so that positions in `bare` are positions in `l`.
    const bare = l.replace(/`[^`]*`/g, (code) => 'x'.repeat(code.length));
    for (const m of bare.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = l.slice(m.index + 2, m.index + 2 + m[1].length);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** Why a link is broken ('' when it is not): a missing file, or an anchor its target page lacks. */
export function brokenLink(root: string, link: Link): string {
  const [path, anchor] = link.target.split('#', 2) as [string, string | undefined];
  const file = path ? join(dirname(link.file), decodeURIComponent(path)) : link.file;
  const where = `${relative(root, link.file)}:${link.line}: ${link.target}`;
  if (!existsSync(file)) return `${where}: no such file`;
  if (anchor === undefined || anchor === '') return '';
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `${where}: an anchor into a file that is not Markdown`;
  return anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)) ? '' : `${where}: ${relative(root, file)} has no heading #${anchor}`;
}
