/** Redis Cluster hash slot of a key: CRC16/XMODEM of the hash tag (or whole key) mod 16384. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const tagged = close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(Buffer.from(tagged)) % 16384;
}

function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
