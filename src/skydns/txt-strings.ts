// A SkyDNS `text` as TXT character-strings: cut into 255-byte pieces, on bytes, as CoreDNS does.
// The answers use it, and an UPDATE keeps only TXT data this cut gives back unchanged.

export function splitText(text: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length < 255) return [bytes];
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 255) out.push(bytes.subarray(i, i + 255));
  return out;
}
