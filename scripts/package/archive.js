// The release archives, with Node built-ins only: ustar .tar.gz (Linux, macOS) and .zip (Windows),
// written deterministically (fixed times, fixed modes) so the same inputs give the same sha256.
// Also reads one file out of a .tgz (the Node binary in an npm package).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, deflateRawSync, gunzipSync, gzipSync } from 'node:zlib';

/** 2026-01-01T00:00:00Z: archive entries carry a fixed time so rebuilds are byte-identical. */
const FIXED_TIME = Date.UTC(2026, 0, 1) / 1000;

/** @typedef {{ name: string, data: Buffer, mode: number }} Entry */

function tarHeader(name, size, mode) {
  const header = Buffer.alloc(512);
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const octal = (value, width) => value.toString(8).padStart(width - 1, '0') + '\0';
  header.write(name, 0);
  header.write(octal(mode, 8), 100);
  header.write(octal(0, 8), 108); // uid
  header.write(octal(0, 8), 116); // gid
  header.write(octal(size, 12), 124);
  header.write(octal(FIXED_TIME, 12), 136);
  header.write('        ', 148); // checksum counted as spaces
  header.write('0', 156); // regular file
  header.write('ustar\x0000', 257);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(octal(sum, 7) + ' ', 148);
  return header;
}

/** @param {Entry[]} entries */
export function tarGz(entries) {
  const parts = [];
  for (const { name, data, mode } of entries) {
    parts.push(tarHeader(name, data.length, mode), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024)); // two empty blocks end the archive
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

/** The files of a .tar.gz (regular files only), by name. */
export function readTarGz(path) {
  const tar = gunzipSync(readFileSync(path));
  const files = new Map();
  let longName;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start, length) => header.toString('latin1', start, start + length).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const prefix = field(345, 155);
    const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    const body = tar.subarray(offset + 512, offset + 512 + size);
    longName = undefined;
    if (type === 'L') longName = body.toString('utf8').replace(/\0.*$/s, '');
    else if (type === '0') files.set(name, { data: Buffer.from(body), mode: parseInt(field(100, 8).trim() || '644', 8) });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** @param {Entry[]} entries */
export function zip(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  // MS-DOS time of FIXED_TIME: 2026-01-01 00:00:00.
  const dosTime = 0;
  const dosDate = ((2026 - 1980) << 9) | (1 << 5) | 1;
  for (const { name, data, mode } of entries) {
    const nameBytes = Buffer.from(name);
    const compressed = deflateRawSync(data, { level: 6 });
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the mode below is read
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38); // external attributes: a regular file's mode
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** Writes the archive and its `<sha256>  <file name>` file (the format `sha256sum -c` reads). */
export function writeArchive(path, data) {
  const digest = sha256(data);
  writeFileSync(path, data);
  writeFileSync(`${path}.sha256`, `${digest}  ${path.split(/[\\/]/).pop()}\n`);
  return digest;
}
