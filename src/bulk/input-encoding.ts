/**
 * The text encoding of an input file, as spreadsheets write them: UTF-8 with or without a byte
 * order mark, UTF-16 LE or BE by their mark (Excel's "Unicode text") or, without one, by their
 * zero bytes, and Windows-1252 (Excel's
 * "CSV" in much of the world) when the bytes are not valid UTF-8. Files are decoded as streams,
 * so memory stays flat however long they are.
 */
import fs from 'node:fs';

/** Encodings of input files. */
export type InputEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/** What {@link detectEncoding} found. */
export interface DetectedEncoding {
  encoding: InputEncoding;
  /** The file starts with a byte order mark. */
  bom: boolean;
}

const CHUNK = 64 * 1024;

/** The encoding named by a byte order mark at the start of `head`, if any. */
export function encodingByBom(head: Uint8Array): InputEncoding | undefined {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Bytes looked at for UTF-16 without a byte order mark. */
const SAMPLE = 4096;

/**
 * UTF-16 written without a byte order mark (some exports and scripts do), told by its zero bytes:
 * text in Latin script has a zero high byte in most characters — at odd offsets in LE, even in BE —
 * while UTF-8 and Windows-1252 text has no zero bytes at all. Asks for most of one side and next to
 * none of the other, so that a stray NUL in an 8-bit file does not count.
 */
export function utf16ByZeroBytes(sample: Uint8Array): InputEncoding | undefined {
  const pairs = Math.floor(sample.length / 2);
  if (pairs < 2) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (sample[i] === 0) evenZeros++;
    if (sample[i + 1] === 0) oddZeros++;
  }
  if (oddZeros >= pairs * 0.3 && evenZeros <= pairs * 0.02) return 'utf-16le';
  if (evenZeros >= pairs * 0.3 && oddZeros <= pairs * 0.02) return 'utf-16be';
  return undefined;
}

/**
 * The encoding of a file: by its byte order mark, else UTF-16 by its zero bytes, else UTF-8 when every byte sequence is valid
 * UTF-8, else Windows-1252. Without a mark the whole file is checked (one streaming pass that
 * stops at the first invalid sequence): a stray `ë` on row 90,000 must not turn into `Ã«` after
 * 89,999 rows were sent as UTF-8.
 */
export async function detectEncoding(file: string): Promise<DetectedEncoding> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    const byBom = encodingByBom(head.subarray(0, bytesRead));
    if (byBom) return { encoding: byBom, bom: true };
    const sample = Buffer.alloc(SAMPLE);
    const { bytesRead: sampled } = await fh.read(sample, 0, SAMPLE, 0);
    const byNuls = utf16ByZeroBytes(sample.subarray(0, sampled));
    if (byNuls) return { encoding: byNuls, bom: false };
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const buf = Buffer.alloc(CHUNK);
    let pos = 0;
    for (;;) {
      const { bytesRead: n } = await fh.read(buf, 0, CHUNK, pos);
      try {
        if (n === 0) {
          decoder.decode();
          break;
        }
        decoder.decode(buf.subarray(0, n), { stream: true });
      } catch {
        return { encoding: 'windows-1252', bom: false };
      }
      pos += n;
    }
    return { encoding: 'utf-8', bom: false };
  } finally {
    await fh.close();
  }
}

/** The file's text, chunk by chunk, without its byte order mark. */
export async function* decodedChunks(file: string, encoding: InputEncoding): AsyncGenerator<string> {
  // The decoder drops a byte order mark of its own encoding and joins characters split between chunks.
  const decoder = new TextDecoder(encoding);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: CHUNK })) {
    const text = decoder.decode(chunk as Buffer, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** `UTF-16 LE`, `Windows-1252`: for messages. */
export function encodingName(e: InputEncoding): string {
  return e === 'utf-8' ? 'UTF-8' : e === 'utf-16le' ? 'UTF-16 LE' : e === 'utf-16be' ? 'UTF-16 BE' : 'Windows-1252';
}
