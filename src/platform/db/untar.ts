// Unpacks a gzipped tar (the embedded database's template, made by PGlite's dumpDataDir) into a
// folder as it streams: a few chunks in memory at a time. PGlite's own loader reads the whole
// archive and writes it through its file system in small pieces; on a new data folder that left
// about 45 MB of the allocator's heap resident for the life of the server (issue 27).
// Regular files and folders only (what the template holds), named in ustar, GNU long-name or pax
// headers; any other entry, and any name that would leave the folder, is refused.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

const BLOCK = 512;

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
}

function octal(header: Buffer, start: number, length: number): number {
  const text = field(header, start, length).trim();
  const value = text === '' ? 0 : Number.parseInt(text, 8);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`tar: bad number "${text}" in a header`);
  return value;
}

/** The name a GNU long-name entry or a pax header gives the entry after it (none from a global pax header). */
function nameIn(type: string, data: Buffer): string | undefined {
  if (type === 'L') return field(data, 0, data.length);
  if (type === 'g') return undefined;
  // pax records: "<length> <key>=<value>\n"
  for (let at = 0; at < data.length;) {
    const space = data.indexOf(0x20, at);
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (space === -1 || !Number.isSafeInteger(length) || length <= 0) throw new Error('tar: a bad pax header');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    if (record.startsWith('path=')) return record.slice('path='.length);
    at += length;
  }
  return undefined;
}

/** Where an entry named `name` goes under `dir`; refuses a name that would leave it. */
function target(dir: string, name: string): string {
  const relative = path.posix.normalize(name.replace(/^\/+/, ''));
  if (relative === '.' || relative === '') return dir;
  if (relative.startsWith('../') || relative === '..') throw new Error(`tar: entry "${name}" leaves the folder`);
  return path.join(dir, relative);
}

export async function extractTarGz(source: Readable, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let header = Buffer.alloc(0);
  let fd: number | undefined;
  let left = 0; // bytes of the current entry still to take
  let skip = 0; // padding after it
  let meta: { type: string; parts: Buffer[] } | undefined; // a long name or pax entry being read
  let longName: string | undefined; // the next entry's name, from the entry before it
  let done = false;
  try {
    await pipeline(source, createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        let rest = chunk;
        while (rest.length > 0 && !done) {
          if (left > 0) {
            const n = Math.min(left, rest.length);
            if (meta) meta.parts.push(rest.subarray(0, n));
            else writeSync(fd!, rest, 0, n);
            left -= n;
            rest = rest.subarray(n);
            if (left === 0 && meta) {
              longName = nameIn(meta.type, Buffer.concat(meta.parts)) ?? longName;
              meta = undefined;
            } else if (left === 0) {
              closeSync(fd!);
              fd = undefined;
            }
            continue;
          }
          if (skip > 0) {
            const n = Math.min(skip, rest.length);
            skip -= n;
            rest = rest.subarray(n);
            continue;
          }
          const need = BLOCK - header.length;
          header = Buffer.concat([header, rest.subarray(0, need)]);
          rest = rest.subarray(need);
          if (header.length < BLOCK) continue;
          const block = header;
          header = Buffer.alloc(0);
          if (block.every((b) => b === 0)) {
            done = true;
            break;
          }
          const prefix = field(block, 345, 155);
          const size = octal(block, 124, 12);
          const type = String.fromCharCode(block[156]!);
          skip = (BLOCK - (size % BLOCK)) % BLOCK;
          if (type === 'L' || type === 'x' || type === 'g') {
            if (size > 64 * 1024) throw new Error('tar: an extended header is too long');
            if (size > 0) {
              meta = { type, parts: [] };
              left = size;
            }
            continue;
          }
          const name = longName ?? (prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100));
          longName = undefined;
          const to = target(dir, name);
          if (type === '5') {
            mkdirSync(to, { recursive: true, mode: 0o700 });
          } else if (type === '0' || type === '\0') {
            mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
            const file = openSync(to, 'w', 0o600);
            if (size > 0) {
              fd = file;
              left = size;
            } else {
              closeSync(file);
            }
          } else {
            throw new Error(`tar: entry "${name}" is of a kind that is not unpacked (type ${JSON.stringify(type)})`);
          }
        }
      }
    });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!done) throw new Error('tar: the archive ends before its end marker');
}
