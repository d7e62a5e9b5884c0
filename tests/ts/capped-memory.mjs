/**
 * A copy of the module whose linear memory may grow only `pages` 64 KiB pages past its initial size, so
 * that a test can make it run out of memory, a real trap, on an input of a few megabytes. Only the memory
 * section's limits change; the code is the shipped code.
 */
export function capMemory(wasm, pages) {
  const bytes = new Uint8Array(wasm);
  const readLeb = (at) => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return [value, at];
  };
  const leb = (value) => {
    const out = [];
    do {
      let byte = value & 0x7f;
      value = Math.floor(value / 128);
      if (value > 0) byte |= 0x80;
      out.push(byte);
    } while (value > 0);
    return out;
  };
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const [size, body] = readLeb(at + 1);
    if (id === 5) {
      const [count, limits] = readLeb(body);
      if (count !== 1) throw new Error(`capMemory: ${count} memories`);
      const flags = bytes[limits];
      if ((flags & ~1) !== 0) throw new Error(`capMemory: memory flags ${flags}`);
      const [initial] = readLeb(limits + 1);
      const section = [1, 1, ...leb(initial), ...leb(initial + pages)];
      return new Uint8Array([
        ...bytes.subarray(0, at),
        5,
        ...leb(section.length),
        ...section,
        ...bytes.subarray(body + size),
      ]);
    }
    at = body + size;
  }
  throw new Error('capMemory: the module defines no memory');
}
