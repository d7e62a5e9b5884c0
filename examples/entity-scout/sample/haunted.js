// This module is haunted: nobody remembers what it does.
export function whisper(name) {
  return `${name}... ${name}...`;
}
