// The process behind a loopback connection to the endpoint, on Linux: the client's socket is the /proc/net/tcp{,6}
// entry whose local port is the connection's remote port and whose remote port is the endpoint's; its inode is held
// open (/proc/PID/fd/N → socket:[inode]) by the client process. Only the processes under `root` (the --exec'd command)
// are searched: they are the run's clients, and their fds are ours to read. Elsewhere, or when anything is missing,
// the answer is undefined and the client is known by its User-Agent.
import { readdir, readFile, readlink } from 'node:fs/promises';

/** One process of the chain from the peer up to the root: its pid, its parent's, and its command line. */
export interface ProcessLink {
  pid: number;
  ppid: number;
  argv: string[];
}

/** The peer process first, then each ancestor, the root last. */
export type PeerAncestry = ProcessLink[];

/**
 * Who is on the other end of a loopback connection from `remotePort` to the endpoint's `localPort`, when it is `root`
 * or one of its descendants.
 */
export async function peerProcess(localPort: number, remotePort: number, root: number, proc = '/proc'): Promise<PeerAncestry | undefined> {
  if (process.platform !== 'linux') return undefined;
  try {
    const inode = await clientSocketInode(localPort, remotePort, proc);
    if (inode === undefined) return undefined;
    const tree = await descendants(root, proc);
    const holders: number[] = [];
    await Promise.all(tree.map(async (pid) => { if (await holdsSocket(pid, inode, proc)) holders.push(pid); }));
    if (holders.length === 0) return undefined;
    // A socket inherited over fork is held by parent and child: the deepest holder is the one that uses it.
    const depth = new Map(tree.map((pid, i) => [pid, i]));
    holders.sort((a, b) => depth.get(b)! - depth.get(a)!);
    return await ancestry(holders[0], root, proc);
  } catch {
    return undefined;
  }
}

/** The inode of the client's end of the connection (local port `remotePort`, peer port `localPort`). */
async function clientSocketInode(localPort: number, remotePort: number, proc: string): Promise<number | undefined> {
  for (const text of await socketTables(proc)) {
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (portOf(f[1]) !== remotePort || portOf(f[2]) !== localPort) continue;
      const inode = Number(f[9]);
      if (inode > 0) return inode;
    }
  }
  return undefined;
}

/**
 * /proc/net/tcp and tcp6, read after the caller's connection existed. The kernel prints every socket of the host's
 * namespace (thousands on a busy machine: tens of ms a read), so the connections a controller opens at once share
 * reads: one under way may have begun before a new connection was accepted, so its waiters share the next one.
 */
function socketTables(proc: string): Promise<string[]> {
  let reads = tableReads.get(proc);
  if (!reads) tableReads.set(proc, (reads = {}));
  const r = reads;
  if (!r.inFlight) {
    r.inFlight = Promise.all(['tcp', 'tcp6'].map((t) => readFile(`${proc}/net/${t}`, 'utf8').catch(() => ''))).finally(() => { r.inFlight = undefined; });
    return r.inFlight;
  }
  r.next ??= r.inFlight.then(() => { r.next = undefined; return socketTables(proc); });
  return r.next;
}

const tableReads = new Map<string, { inFlight?: Promise<string[]>; next?: Promise<string[]> }>();

/** "0100007F:1F90" → 8080 (the port is printed in host order, as a number). */
function portOf(address: string): number {
  return Number.parseInt(address.slice(address.lastIndexOf(':') + 1), 16);
}

/** `root` and every process below it, parents before children (from each task's `children` list). */
async function descendants(root: number, proc: string): Promise<number[]> {
  const out: number[] = [];
  const seen = new Set<number>();
  let level = [root];
  while (level.length && out.length < 10_000) {
    const next: number[] = [];
    for (const pid of level) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      out.push(pid);
      let tasks: string[];
      try { tasks = await readdir(`${proc}/${pid}/task`); } catch { continue; }
      for (const t of tasks) {
        try {
          const children = await readFile(`${proc}/${pid}/task/${t}/children`, 'utf8');
          for (const c of children.split(/\s+/)) if (c) next.push(Number(c));
        } catch { /* the task ended */ }
      }
    }
    level = next;
  }
  return out;
}

async function holdsSocket(pid: number, inode: number, proc: string): Promise<boolean> {
  let fds: string[];
  try { fds = await readdir(`${proc}/${pid}/fd`); } catch { return false; }
  const want = `socket:[${inode}]`;
  for (const fd of fds) {
    try { if ((await readlink(`${proc}/${pid}/fd/${fd}`)) === want) return true; } catch { /* closed meanwhile */ }
  }
  return false;
}

/** The chain from `pid` up to `root`, each with its command line. */
async function ancestry(pid: number, root: number, proc: string): Promise<PeerAncestry | undefined> {
  const chain: PeerAncestry = [];
  for (let p = pid; chain.length < 1000; ) {
    const link = await processLink(p, proc);
    if (!link) return undefined;
    chain.push(link);
    if (p === root) return chain;
    p = link.ppid;
    if (p <= 1) return undefined;
  }
  return undefined;
}

async function processLink(pid: number, proc: string): Promise<ProcessLink | undefined> {
  try {
    const stat = await readFile(`${proc}/${pid}/stat`, 'utf8');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so the fields are read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const argv = (await readFile(`${proc}/${pid}/cmdline`, 'utf8')).split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
    return { pid, ppid, argv };
  } catch {
    return undefined;
  }
}
