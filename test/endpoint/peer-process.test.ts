// The process behind a loopback connection, read from a /proc tree made for the test (the function takes its root):
// the client's socket found in /proc/net/tcp or tcp6 by its two ports, its holder among the --exec'd command's
// processes (the deepest when a fork inherited it), and the chain from it up to the command.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { peerProcess } from '../../src/endpoint/peer-process.js';

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
/** A /proc/net/tcp line: the client's end, local port `local`, remote port `remote` (both printed in hex). */
const tcpLine = (sl: number, local: number, remote: number, inode: number) =>
  `   ${sl}: 0100007F:${local.toString(16).toUpperCase().padStart(4, '0')} 0100007F:${remote.toString(16).toUpperCase().padStart(4, '0')} 01 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;

interface FakeProcess { pid: number; ppid: number; comm?: string; argv: string[]; children?: number[]; sockets?: number[] }

let dirs: string[] = [];
afterEach(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); dirs = []; });

function fakeProc(processes: FakeProcess[], tables: { tcp?: string[]; tcp6?: string[] }): string {
  const proc = mkdtempSync(join(tmpdir(), 'kwatch-proc-'));
  dirs.push(proc);
  mkdirSync(join(proc, 'net'));
  if (tables.tcp) writeFileSync(join(proc, 'net', 'tcp'), [HEADER, ...tables.tcp].join('\n') + '\n');
  if (tables.tcp6) writeFileSync(join(proc, 'net', 'tcp6'), [HEADER, ...tables.tcp6].join('\n') + '\n');
  for (const p of processes) {
    const dir = join(proc, String(p.pid));
    mkdirSync(join(dir, 'task', String(p.pid)), { recursive: true });
    writeFileSync(join(dir, 'task', String(p.pid), 'children'), (p.children ?? []).map((c) => `${c} `).join(''));
    writeFileSync(join(dir, 'stat'), `${p.pid} (${p.comm ?? p.argv[0]}) S ${p.ppid} ${p.pid} ${p.pid} 0 -1 4194560 100 0 0 0`);
    writeFileSync(join(dir, 'cmdline'), p.argv.map((a) => `${a}\0`).join(''));
    mkdirSync(join(dir, 'fd'));
    symlinkSync('/dev/null', join(dir, 'fd', '0'));
    (p.sockets ?? []).forEach((inode, i) => symlinkSync(`socket:[${inode}]`, join(dir, 'fd', String(3 + i))));
  }
  return proc;
}

const onLinux = process.platform === 'linux';

describe.runIf(onLinux)('peerProcess', () => {
  const tree: FakeProcess[] = [
    { pid: 100, ppid: 50, argv: ['sh', '-c', 'the script'], children: [200] },
    { pid: 200, ppid: 100, comm: 'my (odd) prog', argv: ['python3', 'app.py', '', 'x'], children: [300], sockets: [7777] },
    // A worker forked by 200: it holds the inherited socket too, and it is the one that uses it.
    { pid: 300, ppid: 200, argv: ['python3', 'app.py', '', 'x'], sockets: [9999, 7777] },
    // Not under the command: never searched.
    { pid: 400, ppid: 1, argv: ['other'], sockets: [8888] },
  ];

  it('finds the deepest process holding the client\'s socket, and its chain up to the command', async () => {
    const proc = fakeProc(tree, { tcp: [tcpLine(0, 8080, 40000, 1111), tcpLine(1, 40000, 8080, 7777), tcpLine(2, 40001, 8080, 8888)] });
    expect(await peerProcess(8080, 40000, 100, proc)).toEqual([
      { pid: 300, ppid: 200, argv: ['python3', 'app.py', '', 'x'] },
      { pid: 200, ppid: 100, argv: ['python3', 'app.py', '', 'x'] },
      { pid: 100, ppid: 50, argv: ['sh', '-c', 'the script'] },
    ]);
  });

  it('reads tcp6 too, and a comm with spaces and parentheses', async () => {
    const proc = fakeProc(tree.filter((p) => p.pid !== 300).map((p) => ({ ...p, children: p.pid === 200 ? [] : p.children })), { tcp: [], tcp6: [tcpLine(0, 51000, 6443, 7777)] });
    expect(await peerProcess(6443, 51000, 100, proc)).toEqual([
      { pid: 200, ppid: 100, argv: ['python3', 'app.py', '', 'x'] },
      { pid: 100, ppid: 50, argv: ['sh', '-c', 'the script'] },
    ]);
  });

  it('passes over an entry of the same ports without an inode (a socket closing) for the live one', async () => {
    const proc = fakeProc([{ pid: 100, ppid: 50, argv: ['manager'], sockets: [5555] }], { tcp: [tcpLine(0, 40000, 8080, 0)], tcp6: [tcpLine(0, 40000, 8080, 5555)] });
    expect(await peerProcess(8080, 40000, 100, proc)).toEqual([{ pid: 100, ppid: 50, argv: ['manager'] }]);
  });

  it('the command itself', async () => {
    const proc = fakeProc([{ pid: 100, ppid: 50, argv: ['manager'], sockets: [5555] }], { tcp: [tcpLine(0, 40000, 8080, 5555)] });
    expect(await peerProcess(8080, 40000, 100, proc)).toEqual([{ pid: 100, ppid: 50, argv: ['manager'] }]);
  });

  it('nothing when the ports match no socket, the socket\'s inode is 0, its holder is not under the command, or there is no table', async () => {
    const proc = fakeProc(tree, { tcp: [tcpLine(0, 40000, 8081, 7777), tcpLine(1, 40002, 8080, 0), tcpLine(2, 40001, 8080, 8888), 'garbage line'] });
    // The ports the other way round: the endpoint's end of the connection, not the client's.
    expect(await peerProcess(40000, 8081, 100, proc)).toBeUndefined();
    expect(await peerProcess(8080, 40000, 100, proc)).toBeUndefined();
    expect(await peerProcess(8080, 40002, 100, proc)).toBeUndefined();
    expect(await peerProcess(8080, 40001, 100, proc)).toBeUndefined();
    expect(await peerProcess(8080, 40000, 100, fakeProc(tree, {}))).toBeUndefined();
  });

  it('nothing when the chain up from the holder breaks before the command', async () => {
    // 200 is listed as a child of 100 but says its parent is init.
    const orphan = tree.map((p) => (p.pid === 200 ? { ...p, ppid: 1 } : p)).filter((p) => p.pid !== 300).map((p) => ({ ...p, children: p.pid === 200 ? [] : p.children }));
    expect(await peerProcess(8080, 40000, 100, fakeProc(orphan, { tcp: [tcpLine(0, 40000, 8080, 7777)] }))).toBeUndefined();
  });
});
